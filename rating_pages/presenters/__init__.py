"""The pages' presenters: what a view shows, shaped from the selectors' reads, one module per page
(and `rules`, the sentences on ranks and provisional ratings that several pages show)."""
