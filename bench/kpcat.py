#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""kpcat.py KPSYM_OUTPUT - group kpsym.py's per-function tables into the
categories of bench/README.md (ring walk, used ring, copies, hardened
usercopy, page clearing, system call, skb build and stack, user space).

The grouping is by function name (rules below, first match wins); every
function kpsym.py listed is counted, so run kpsym.py with a large TOP.
"""
import collections
import re
import sys
CATS = [
 ('user: libvringfd + bench loop', lambda s: s.startswith('U:')),
 ('hardened usercopy', lambda s: re.match(r'(__check_object_size|check_stack_object|__virt_addr_valid|check_heap_object|__check_heap_object|is_vmalloc_addr|check_page_span|__check_sticky|virt_to_folio|kfence_|__phys_addr)',s)),
 ('clear_page (page allocation)', lambda s: 'clear_page' in s or s.startswith(('get_page_from_freelist','__alloc_pages','rmqueue','prep_new_page','post_alloc_hook','free_unref_page','__free_pages','free_pcp','__rmqueue','free_pcppages','__mod_zone','kernel_init_pages','__page_frag_cache_refill','page_frag_alloc'))),
 ('byte copies', lambda s: re.match(r'(copy_user|_copy_from_user|_copy_to_user|copy_page_from_iter|copy_page_to_iter|_copy_from_iter|_copy_to_iter|memcpy|skb_copy_datagram|__skb_datagram_iter|simple_copy_to_iter|vrfd_tap_iov_copy|memmove)',s)),
 ('vringfd ring walk (avail, descriptors)', lambda s: re.match(r'vrfd_(get_chain|add_seg|ring_avail|ring_get|translate|walk|desc|chain|fetch|ring_check|mem)',s)),
 ('vringfd used ring', lambda s: re.match(r'vrfd_(ring_add_used|used|ring_publish|ring_used|signal|put_used|ring_flush)',s)),
 ('vringfd other (push/pull, fd, tap glue)', lambda s: '[vringfd]' in s),
 ('syscall entry/exit, fd lookup, VFS, LSM', lambda s: re.match(r'(entry_SYSCALL|do_syscall|syscall_|exit_to_user|__x64_sys|ksys_|vfs_|__fget|fput|__fdget|apparmor|aa_|security_|rw_verify|__fsnotify|fsnotify|sock_recvmsg|sock_sendmsg|__sys_|do_sys|x64_sys_call|__f_unlock|syscall_enter|syscall_exit|rcu_note|__cond_resched|fpregs|switch_fpu|restore_fpregs|native_|__ia32|import_iovec|__import|_raw_spin|try_to_wake|tun_chr_(write|read)_iter|tun_get$|__tun_get|tun_put$|do_iter|new_sync|__fdget_pos|ktime|read_tsc|poll|do_poll|do_sys_poll|__x86_return|__rcu_read)',s)),
 ('skb build + stack receive/transmit (tun, net core, slab, memset)', lambda s: True),
]
def parse(f):
    wins={}; cur=None
    for l in open(f):
        if l.startswith('== '):
            cur=l[3:].split(':')[0]; wins[cur]={'_tot':float(l.split(': ')[1].split()[0])}; continue
        m=re.match(r'\s+([\d.]+)\s+[\d.]+%\s+(.*)',l)
        if m and cur: wins[cur][m[2]]=float(m[1])
    return wins
w=parse(sys.argv[1])
for name,d in w.items():
    acc=collections.OrderedDict((c,0.0) for c,_ in CATS)
    for s,v in d.items():
        if s=='_tot': continue
        for c,f in CATS:
            if f(s): acc[c]+=v; break
    print(f'== {name}: {d["_tot"]:.1f} instr/frame')
    for c,v in acc.items():
        if v>=0.5: print(f'  {v:8.1f}  {100*v/d["_tot"]:5.1f}%  {c}')
