"""Personal data in workflow executions: reviewers' decisions at human steps."""
