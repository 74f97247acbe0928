"""Submission validator: JSON Schemas in schema/ and the checks in validate.py."""

from .validate import check_submission, validate_submission

__all__ = ["check_submission", "validate_submission"]
