"""A tool domain's mock handlers as a local HTTP service with fault injection (test/demo only;
the handlers and data come from the domain, default the reference one)."""

from tao.mock_service.app import FaultConfig, MockState, create_app
from tao.mock_service.server import RunningService, start_in_thread

__all__ = ["FaultConfig", "MockState", "RunningService", "create_app", "start_in_thread"]
