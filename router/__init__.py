"""Token-second admission and cheapest-fitting model routing (``import router``)."""
