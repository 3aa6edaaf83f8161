"""The web page of `retrologic serve` (issue #20, item 4): paste a problem, pick the question,
run it as a background job under the usual limits, watch it, see the verdict and diagrams."""
