"""Time steppers."""
