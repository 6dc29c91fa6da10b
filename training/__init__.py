"""Registry-driven data generation, tokenizer and training of the plan model."""
