from typing import Any

import numpy as np

def section_values(
    data: np.ndarray, starts: np.ndarray, stops: np.ndarray, out: np.ndarray, gaps: np.ndarray
) -> int: ...
def top_values(
    data: np.ndarray,
    starts: np.ndarray,
    stops: np.ndarray,
    width: int,
    cpu_at: int,
    command_at: int,
    resident_at: np.ndarray,
    cpu: np.ndarray,
    resident: np.ndarray,
    bounds: np.ndarray,
) -> int: ...
def index_lines(data: np.ndarray, size: int, name_span: int) -> tuple[Any, ...] | None: ...
