"""The one compiled part of the package: the nmon parser's inner loop (see
``rootline/parsers/_nmon_fast.pyx``). It is optional: where Cython or a C compiler is
missing, the package installs without it and the parser reads with pyarrow alone."""

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
                extra_compile_args=["-O2"],
                optional=True,
            )
        ],
        language_level=3,
    )

setup(ext_modules=extensions)
