"""The compiled parts of the package: the nmon parser's inner loops
(``rootline/parsers/_nmon_fast.pyx``), the ss parser's number reading
(``rootline/parsers/_ss_fast.pyx``; both read numbers by ``_decimal.pxd``) and the point
codec's byte planes
(``rootline/series/_planes.pyx``). They are optional: where Cython or a C compiler is
missing, the package installs without them and the same code runs on pyarrow and numpy."""

from setuptools import Extension, setup

try:
    from Cython.Build import cythonize
except ImportError:  # no Cython in the build environment: the pure path only
    extensions = []
else:
    extensions = cythonize(
        [
            Extension(
                "rootline.parsers._nmon_fast",
                ["rootline/parsers/_nmon_fast.pyx"],
                extra_compile_args=["-O3"],
                optional=True,
            ),
            Extension(
                "rootline.parsers._ss_fast",
                ["rootline/parsers/_ss_fast.pyx"],
                extra_compile_args=["-O3"],
                optional=True,
            ),
            Extension(
                "rootline.series._planes",
                ["rootline/series/_planes.pyx"],
                extra_compile_args=["-O3"],
                optional=True,
            ),
        ],
        language_level=3,
    )

setup(ext_modules=extensions)
