//! Evaluate XGBoost tree ensembles from their JSON model dump (owned by the estimator).
