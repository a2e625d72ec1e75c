#!/bin/sh
# Regenerate the build system from configure.ac and Makefile.am.
set -e
cd "$(dirname "$0")"
autoreconf --force --install --verbose
echo
echo "Now run: ./configure && make && make check"
