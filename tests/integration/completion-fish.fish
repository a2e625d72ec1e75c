# SPDX-License-Identifier: GPL-2.0-or-later
# fish completion-fish.fish FILE (for completion-shells.test): sources FILE, reads command
# lines on stdin and prints, for each, the candidates fish offers for it ("complete -C",
# without their descriptions), one per line, then a line holding only \x1e.
source $argv[1]; or exit 9
while read -l line
    complete -C "$line" | string replace -r '\t.*' ''
    printf '\x1e\n'
end
