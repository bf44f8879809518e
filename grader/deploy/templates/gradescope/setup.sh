#!/bin/bash
# Gradescope runs this once, as root, when it builds the autograder's image (its "Autograder
# Specifications"): the files of the zip are in /autograder/source.
set -euo pipefail
bash /autograder/source/gpugrade/install.sh /autograder/source/course
