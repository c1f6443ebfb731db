"""gtp_board.py: the stones of a gt-gtp showboard response."""


def board_stones(text, n):
    """(c, x, y) for every stone of showboard's text on an n x n board: c is
    'X' (black) or 'O' (white), x the column from 0 at the left, y the row
    number as printed (n at the top)."""
    for r in text.split("\n"):
        t = r.split()
        if not t or not t[0].isdigit():
            continue
        y = int(t[0])
        for x, c in enumerate(t[1:1 + n]):
            if c in "XO":
                yield c, x, y
