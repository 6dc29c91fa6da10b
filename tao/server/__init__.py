"""The serving binary (`tao serve`): FastAPI app assembled from per-feature route modules."""
