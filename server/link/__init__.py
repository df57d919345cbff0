"""A client's link, which every layer from the table up sends to: ``conn``
(one client connection: codec, rate limit, sending, close codes), ``guard``
(limits kept per client address, and the rate bucket a connection uses)."""
