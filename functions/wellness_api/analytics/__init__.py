"""Analytics (spec 4.10, 2.14): the administrators' dashboard, read from rollups and aggregation queries."""
