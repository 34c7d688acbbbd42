"""Board geometry of docs/rules.md §2 as constant tables indexed by border position 0..15.

Border position i holds card number i + 1; the ring runs clockwise from card 1
(top row, left) with card 16 in the top-left corner.
"""

import numpy as np

# Column (0..2) of the central grid a column card points along, else -1.
BORDER_COL = np.array(
    # 1  2  3  4   5   6   7   8  9 10 11 12  13  14  15  16
    [0, 1, 2, -1, -1, -1, -1, -1, 2, 1, 0, -1, -1, -1, -1, -1], dtype=np.int64
)
# Row (0..2) of the central grid a row card points along, else -1.
BORDER_ROW = np.array(
    [-1, -1, -1, -1, 0, 1, 2, -1, -1, -1, -1, -1, 2, 1, 0, -1], dtype=np.int64
)
# Border position facing this one across the board, else -1 (corners).
FACING = np.array(
    [10, 9, 8, -1, 14, 13, 12, -1, 2, 1, 0, -1, 6, 5, 4, -1], dtype=np.int64
)
CORNERS = (3, 7, 11, 15)


def cell_index(row: int, col: int) -> int:
    """Central cell (row, col) with row, col in 0..2 (board cell (row+1, col+1))."""
    return row * 3 + col
