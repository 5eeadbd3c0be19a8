import numpy as np

def section_values(
    data: np.ndarray, starts: np.ndarray, stops: np.ndarray, out: np.ndarray, gaps: np.ndarray
) -> int: ...
