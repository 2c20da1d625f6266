#!/bin/bash
# ports_kernel_dpdk_in_memory.sh - (VM rig) ports_kernel_dpdk.sh with testpmd's
# --in-memory (hugetlb memfds instead of hugetlbfs files); see that script.
DPDK_MODE=in-memory exec bash "$(dirname "$0")/ports_kernel_dpdk.sh"
