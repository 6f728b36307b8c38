"""Holonomic constraints: rigid-body orthonormality, the ground anchor, joint pairs, augmentations."""
