"""The public face of the API: the OpenAPI 3.1 document assembled from every area's declarations."""
