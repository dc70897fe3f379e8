# Models arrive with the call-path and write-lane issues.
