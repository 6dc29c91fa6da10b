"""XGBoost token-count estimator with online correction and a fast single-row predict path."""
