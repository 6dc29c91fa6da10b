"""The reference registry's tools as a local mock HTTP service with fault injection."""

from tao.mock_service.app import FaultConfig, MockState, create_app
from tao.mock_service.server import RunningService, start_in_thread

__all__ = ["FaultConfig", "MockState", "RunningService", "create_app", "start_in_thread"]
