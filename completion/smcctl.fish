# SPDX-License-Identifier: GPL-2.0-or-later
# fish completion for smcctl(8)
#
# The candidates come from smcctl itself ("smcctl __complete WORD...", cli/complete.c),
# which computes them from the same table of objects, verbs and options that its parser
# uses, as for bash (completion/smcctl); this file only prints smcctl's answer and fills in
# what only the shell can list (files, interfaces, devices, network namespaces, commands,
# units).  Installed as smcctl.fish in fish's vendor_completions.d, loaded on the first
# <Tab> after smcctl.

# __smcctl_names DIR...: the names in the directories that exist.
function __smcctl_names
    for d in $argv
        set -l names $d/*
        string replace -r '.*/' '' -- $names
    end
end

function __smcctl_complete
    set -l tokens (commandline -opc)
    set -l cur (commandline -ct)
    # The smcctl that is being completed (./cli/smcctl in a build tree), else the one in PATH.
    set -l prog $tokens[1]
    if not string match -q '*/*' -- $prog; or not test -x $prog
        set prog smcctl
    end

    set -l directive
    for line in ($prog __complete $tokens[2..-1] $cur 2>/dev/null)
        switch $line
            case '@*'
                set directive (string sub -s 2 -- $line)
            case '?*'
                printf '%s\n' $line
        end
    end

    switch "$directive"
        case 'command-args *'
            # "smcctl run CMD ARGS": complete CMD's arguments as fish would for CMD.
            set -l first (math (string replace 'command-args ' '' -- $directive) + 2)
            complete -C (string join ' ' -- (string escape -- $tokens[$first..-1]) $cur)
        case files default
            __fish_complete_path $cur
        case interfaces
            __smcctl_names /sys/class/net
        case rdma
            __smcctl_names /sys/class/dibs /sys/class/infiniband
        case devices
            __smcctl_names /sys/class/dibs /sys/class/infiniband /sys/class/net
        case netns
            __smcctl_names /run/netns
        case cgroups
            # cgroup v2 paths as /proc/PID/cgroup shows them (below /sys/fs/cgroup), one
            # level at a time.
            set -l dir (string replace -r '/[^/]*$' '' -- $cur)
            string match -q '*/*' -- $cur; or set dir ''
            set -l paths /sys/fs/cgroup$dir/*/
            string replace -r '^/sys/fs/cgroup' '' -- $paths
        case commands
            __fish_complete_command
        case units
            # smcctl enable: the units that have a cgroup, as systemd lists them; not the
            # templates (NAME@.TYPE): they run no processes and enable refuses them.
            systemctl list-unit-files --no-legend --plain \
                --type=service,socket,slice,scope,mount,swap 2>/dev/null | string replace -r ' .*' '' |
                string match -v -- '*@.*'
        case enabled-units
            # smcctl disable: the units with a drop-in of smcctl enable.
            set -l dropins /etc/smc/smc.yaml.d/50-unit-*.yaml
            string replace -r '^.*/50-unit-(.*)\.yaml$' '$1' -- $dropins
    end
end

complete -c smcctl -f -a '(__smcctl_complete)'
