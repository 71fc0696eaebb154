"""OData query options → SQL on top of odata-query's parser, and the `@odata.*` envelopes."""
