"""How well each rating system predicted the federation's own games: measures over stored rows."""
