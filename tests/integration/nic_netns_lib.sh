# shellcheck shell=sh
# $tmp, $mport and lib_cleanup come from lib.sh (sourced first).
# shellcheck disable=SC2154,SC2016 # (the sysctl loop is expanded by the inner sh)
# Two network namespaces standing in for nodes 1 and 2 of a cable plan, for
# the nic tests that run the daemon on real kernel interfaces
# (nic_cable_check_test.sh, nic_daemonset_test.sh). Source after lib.sh and
# lib_init:
#
# nicns_init TAG
#     Sets ns1="fsc-TAG-<pid>-1" and ns2 (…-2), traps EXIT to lib_cleanup and
#     the removal of both namespaces, creates them with IPv6 off,
#     arp_ignore=1 and arp_announce=2 (collector/sources/nic/nic_hostcheck.h
#     says why: else a swapped cable still resolves) and lo up. Exits 1 when
#     a namespace cannot be made.
# fetch_metrics [OUT]
#     lib.sh's, from inside node 1's namespace, where the daemon runs.

nicns_cleanup() {
    lib_cleanup
    ip netns del "$ns1" 2>/dev/null
    ip netns del "$ns2" 2>/dev/null
}

nicns_init() {
    ns1="fsc-$1-$$-1"
    ns2="fsc-$1-$$-2"
    trap nicns_cleanup EXIT
    ip netns add "$ns1" || exit 1
    ip netns add "$ns2" || exit 1
    for _ni_ns in "$ns1" "$ns2"; do
        ip netns exec "$_ni_ns" sh -c 'for f in all default; do
                echo 1 >/proc/sys/net/ipv6/conf/$f/disable_ipv6 &&
                echo 1 >/proc/sys/net/ipv4/conf/$f/arp_ignore &&
                echo 2 >/proc/sys/net/ipv4/conf/$f/arp_announce || exit 1
            done' || exit 1
        ip -n "$_ni_ns" link set lo up || exit 1
    done
}

fetch_metrics() {
    ip netns exec "$ns1" curl -sf --max-time 10 "http://127.0.0.1:$mport/metrics" \
        >"${1:-$tmp/metrics}" 2>/dev/null
}
