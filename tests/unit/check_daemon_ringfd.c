// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * check_daemon_ringfd.c - the ring-fd port's protocol (daemon/ringfd_proto.c)
 *
 * Every malformed SETUP gets its own test with the exact answer (errno and
 * text); fd checks run on real memfds, eventfds, pipes and files; the
 * receive path runs over a SOCK_SEQPACKET socketpair, counting this
 * process's fds before and after to see that refused fds are closed.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "unit/runner.h"
#include "ringfd_proto.h"

Suite *ringfd_suite(void);

/**
 * struct msg2 - a SETUP with room for two queue pairs
 * @s: the fixed part
 * @qp: the queue pairs
 */
struct msg2 {
	struct vringnet_rfd_setup s;
	struct vringnet_rfd_qp qp[2];
};

static struct msg2 m;
static size_t mlen;
static struct ringfd_proto_setup out;
static char err[256];

/**
 * good() - a valid one-queue-pair SETUP (16-entry rings in 2 KiB)
 */
static void good(void)
{
	memset(&m, 0, sizeof(m));
	mlen = sizeof(m.s) + sizeof(m.qp[0]);
	m.s.hdr = (struct vringnet_rfd_hdr){ VRINGNET_RFD_MAGIC, VRINGNET_RFD_VERSION,
					     (uint16_t)mlen, VRINGNET_RFD_SETUP };
	m.s.nqp = 1;
	m.s.vnet_hdr_len = 12;
	m.qp[0].tx = (struct vringnet_rfd_ring){ 16, 0, 0, 256, 512 };
	m.qp[0].rx = (struct vringnet_rfd_ring){ 16, 0, 1024, 1280, 1536 };
}

/**
 * dec() - decode the current message with @nfds fds
 * @nfds: fds
 * Return: ringfd_proto_decode_setup()'s answer.
 */
static int dec(unsigned int nfds)
{
	err[0] = '\0';
	return ringfd_proto_decode_setup(&m, mlen, nfds, &out, err, sizeof(err));
}

#define EXPECT(ret, want, text) do {				\
	ck_assert_int_eq((ret), (want));			\
	ck_assert_str_eq(err, (text));				\
} while (0)

START_TEST(good_setup)
{
	good();
	m.s.features = VRINGNET_RFD_FEATURES;
	m.s.flags = VRINGNET_RFD_F_MRG_RXBUF;
	ck_assert_int_eq(dec(5), 0);
	ck_assert_uint_eq(out.nqp, 1);
	ck_assert(out.mrg_rxbuf);
	ck_assert_uint_eq(out.features, VRINGNET_RFD_FEATURES);
	ck_assert_uint_eq(out.qp[0].rx.used, 1536);
	ck_assert_int_eq(ringfd_proto_check_layout(&out, 1536 + 6 + 8 * 16, err, sizeof(err)), 0);
}
END_TEST

START_TEST(short_header)
{
	good();
	mlen = 4;
	EXPECT(dec(5), -EBADMSG, "message of 4 bytes is shorter than the 12-byte header");
}
END_TEST

START_TEST(empty_message)
{
	good();
	mlen = 0;
	EXPECT(dec(5), -EBADMSG, "message of 0 bytes is shorter than the 12-byte header");
}
END_TEST

START_TEST(bad_magic)
{
	good();
	m.s.hdr.magic = 0x12345678;
	EXPECT(dec(5), -EPROTO, "bad magic 0x12345678 (want 0x44465256)");
}
END_TEST

START_TEST(bad_version)
{
	good();
	m.s.hdr.version = 2;
	EXPECT(dec(5), -EPROTONOSUPPORT,
	       "protocol version 2 not supported (this daemon speaks 1)");
}
END_TEST

START_TEST(bad_type)
{
	good();
	m.s.hdr.type = VRINGNET_RFD_OK;
	EXPECT(dec(5), -EBADMSG, "message type 2 is not SETUP (1)");
}
END_TEST

START_TEST(size_field_short)
{
	good();
	m.s.hdr.size = 95;
	EXPECT(dec(5), -EMSGSIZE, "header says 95 bytes, the message has 96");
}
END_TEST

START_TEST(size_field_long)
{
	good();
	mlen = 97;
	EXPECT(dec(5), -EMSGSIZE, "header says 96 bytes, the message has 97");
}
END_TEST

START_TEST(fixed_part_short)
{
	good();
	mlen = 20;
	m.s.hdr.size = 20;
	EXPECT(dec(5), -EMSGSIZE, "SETUP of 20 bytes is shorter than its 32 fixed bytes");
}
END_TEST

START_TEST(long_for_nqp)
{
	good();
	mlen = sizeof(m);
	m.s.hdr.size = (uint16_t)mlen;
	EXPECT(dec(5), -EMSGSIZE, "SETUP of 160 bytes for 1 queue pairs (want 96)");
}
END_TEST

START_TEST(short_for_nqp)
{
	good();
	m.s.nqp = 2;
	EXPECT(dec(9), -EMSGSIZE, "SETUP of 96 bytes for 2 queue pairs (want 160)");
}
END_TEST

START_TEST(nqp_zero)
{
	good();
	m.s.nqp = 0;
	EXPECT(dec(1), -EINVAL, "nqp 0 not in 1..8");
}
END_TEST

START_TEST(nqp_nine)
{
	good();
	m.s.nqp = 9;
	EXPECT(dec(37), -EINVAL, "nqp 9 not in 1..8");
}
END_TEST

START_TEST(vnet_hdr_0)
{
	good();
	m.s.vnet_hdr_len = 0;
	EXPECT(dec(5), -EINVAL, "vnet_hdr_len 0 (must be 12)");
}
END_TEST

START_TEST(vnet_hdr_10)
{
	good();
	m.s.vnet_hdr_len = 10;
	EXPECT(dec(5), -EINVAL, "vnet_hdr_len 10 (must be 12)");
}
END_TEST

START_TEST(unknown_feature)
{
	good();
	m.s.features = (1ULL << VIRTIO_RING_F_EVENT_IDX) | (1ULL << 32);
	EXPECT(dec(5), -EOPNOTSUPP, "unknown features 0x100000000");
}
END_TEST

START_TEST(unknown_flag)
{
	good();
	m.s.flags = 0x7;
	EXPECT(dec(5), -EOPNOTSUPP, "unknown flags 0x4");
}
END_TEST

/**
 * good_rings() - a valid one-queue-pair SETUP of passed rings (16 entries)
 */
static void good_rings(void)
{
	good();
	m.s.flags = VRINGNET_RFD_F_RINGS;
	m.qp[0].tx = (struct vringnet_rfd_ring){ 16, 0, 0, 0, 0 };
	m.qp[0].rx = (struct vringnet_rfd_ring){ 16, 0, 0, 0, 0 };
}

START_TEST(rings_setup_good)
{
	good_rings();
	m.s.flags |= VRINGNET_RFD_F_MRG_RXBUF;
	ck_assert_int_eq(dec(6), 0);
	ck_assert(out.rings);
	ck_assert(out.mrg_rxbuf);
	ck_assert_uint_eq(out.nqp, 1);
	ck_assert_uint_eq(ringfd_proto_nfds(&out), 6);
	ck_assert_uint_eq(ringfd_proto_evfd_base(&out), 2);
}
END_TEST

START_TEST(rings_two_qp_good)
{
	good_rings();
	m.s.nqp = 2;
	mlen = sizeof(m);
	m.s.hdr.size = (uint16_t)mlen;
	m.qp[1] = m.qp[0];
	m.qp[1].rx.num = 32768;
	ck_assert_int_eq(dec(12), 0);
	ck_assert_uint_eq(out.qp[1].rx.num, 32768);
	ck_assert_uint_eq(ringfd_proto_evfd_base(&out), 4);
}
END_TEST

START_TEST(rings_memfd_count)
{
	good_rings();
	EXPECT(dec(5), -EBADF,
	       "5 fds for 1 queue pairs (want 6: the tx and rx vring fd per pair, then tx kick, tx call, rx kick, rx call per pair)");
}
END_TEST

START_TEST(rings_desc_set)
{
	good_rings();
	m.qp[0].tx.desc = 4096;
	EXPECT(dec(6), -EINVAL,
	       "queue pair 0 tx ring: desc, avail and used must be 0 with passed rings");
}
END_TEST

START_TEST(rings_used_set)
{
	good_rings();
	m.qp[0].rx.used = 4;
	EXPECT(dec(6), -EINVAL,
	       "queue pair 0 rx ring: desc, avail and used must be 0 with passed rings");
}
END_TEST

START_TEST(rings_num_checked)
{
	good_rings();
	m.qp[0].rx.num = 24;
	EXPECT(dec(6), -EINVAL, "queue pair 0 rx ring: num 24 is not a power of two in 1..32768");
}
END_TEST

START_TEST(ring_reserved_set)
{
	good();
	m.qp[0].rx.reserved = 7;
	EXPECT(dec(5), -EINVAL, "queue pair 0 rx ring: reserved field not zero");
}
END_TEST

START_TEST(missing_fds)
{
	good();
	EXPECT(dec(0), -EBADF,
	       "0 fds for 1 queue pairs (want 5: the memfd, then tx kick, tx call, rx kick, rx call per pair)");
}
END_TEST

START_TEST(one_fd_short)
{
	good();
	EXPECT(dec(4), -EBADF,
	       "4 fds for 1 queue pairs (want 5: the memfd, then tx kick, tx call, rx kick, rx call per pair)");
}
END_TEST

START_TEST(extra_fd)
{
	good();
	EXPECT(dec(6), -EBADF,
	       "6 fds for 1 queue pairs (want 5: the memfd, then tx kick, tx call, rx kick, rx call per pair)");
}
END_TEST

START_TEST(num_zero)
{
	good();
	m.qp[0].tx.num = 0;
	EXPECT(dec(5), -EINVAL, "queue pair 0 tx ring: num 0 is not a power of two in 1..32768");
}
END_TEST

START_TEST(num_not_pow2)
{
	good();
	m.qp[0].rx.num = 24;
	EXPECT(dec(5), -EINVAL, "queue pair 0 rx ring: num 24 is not a power of two in 1..32768");
}
END_TEST

START_TEST(num_65536)
{
	good();
	m.qp[0].tx.num = 65536;
	EXPECT(dec(5), -EINVAL, "queue pair 0 tx ring: num 65536 is not a power of two in 1..32768");
}
END_TEST

START_TEST(num_32768_ok)
{
	good();
	m.qp[0].tx.num = 32768;
	ck_assert_int_eq(dec(5), 0);
}
END_TEST

START_TEST(desc_misaligned)
{
	good();
	m.qp[0].tx.desc = 8;
	EXPECT(dec(5), -EINVAL, "queue pair 0 tx ring: desc offset 0x8 not 16-byte aligned");
}
END_TEST

START_TEST(avail_misaligned)
{
	good();
	m.qp[0].rx.avail = 1281;
	EXPECT(dec(5), -EINVAL, "queue pair 0 rx ring: avail offset 0x501 not 2-byte aligned");
}
END_TEST

START_TEST(used_misaligned)
{
	good();
	m.qp[0].tx.used = 514;
	EXPECT(dec(5), -EINVAL, "queue pair 0 tx ring: used offset 0x202 not 4-byte aligned");
}
END_TEST

START_TEST(second_qp_checked)
{
	good();
	m.s.nqp = 2;
	mlen = sizeof(m);
	m.s.hdr.size = (uint16_t)mlen;
	m.qp[1] = m.qp[0];
	m.qp[1].rx.num = 3;
	EXPECT(dec(9), -EINVAL, "queue pair 1 rx ring: num 3 is not a power of two in 1..32768");
}
END_TEST

/**
 * layout() - decode the message, then check it against a memfd size
 * @size: the memfd's size
 * Return: ringfd_proto_check_layout()'s answer.
 */
static int layout(uint64_t size)
{
	ck_assert_int_eq(dec(RINGFD_PROTO_NFDS(m.s.nqp)), 0);
	err[0] = '\0';
	return ringfd_proto_check_layout(&out, size, err, sizeof(err));
}

START_TEST(memfd_too_small)
{
	good();
	EXPECT(layout(1600), -ERANGE,
	       "queue pair 0 rx ring: used at 0x600+134 is outside the memfd (1600 bytes)");
}
END_TEST

START_TEST(memfd_exact_fit)
{
	good();
	ck_assert_int_eq(layout(1536 + 134), 0);
}
END_TEST

START_TEST(offset_beyond_memfd)
{
	good();
	m.qp[0].tx.desc = 1ULL << 40;
	EXPECT(layout(65536), -ERANGE,
	       "queue pair 0 tx ring: desc at 0x10000000000+256 is outside the memfd (65536 bytes)");
}
END_TEST

START_TEST(offset_wraps)
{
	good();
	m.qp[0].tx.avail = 0xfffffffffffffff0ULL;
	EXPECT(layout(65536), -ERANGE,
	       "queue pair 0 tx ring: avail at 0xfffffffffffffff0+38 is outside the memfd (65536 bytes)");
}
END_TEST

START_TEST(overlap_same_ring)
{
	good();
	m.qp[0].tx.avail = 128;	/* inside the 256-byte descriptor table */
	EXPECT(layout(65536), -EINVAL, "queue pair 0 tx ring desc overlaps queue pair 0 tx ring avail");
}
END_TEST

START_TEST(overlap_other_ring)
{
	good();
	m.qp[0].rx.desc = 512;	/* the tx used ring */
	EXPECT(layout(65536), -EINVAL, "queue pair 0 tx ring used overlaps queue pair 0 rx ring desc");
}
END_TEST

START_TEST(overlap_other_qp)
{
	good();
	m.s.nqp = 2;
	mlen = sizeof(m);
	m.s.hdr.size = (uint16_t)mlen;
	m.qp[1].tx = (struct vringnet_rfd_ring){ 16, 0, 2048, 2304, 2560 };
	m.qp[1].rx = (struct vringnet_rfd_ring){ 16, 0, 3072, 1536, 3584 };
	EXPECT(layout(65536), -EINVAL, "queue pair 0 rx ring used overlaps queue pair 1 rx ring avail");
}
END_TEST

START_TEST(adjacent_parts_ok)
{
	good();
	m.qp[0].tx.avail = 256;		/* right after 16 descriptors */
	m.qp[0].tx.used = 256 + 40;	/* 6 + 2 * 16 = 38, next 4-aligned */
	ck_assert_int_eq(layout(65536), 0);
}
END_TEST

/**
 * count_fds() - this process's open fds
 * Return: entries in /proc/self/fd (minus the directory's own fd).
 */
static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n - 1;
}

/**
 * memfd() - a memfd of @size bytes
 * @size: bytes
 * @seals: seals to add (0: none)
 * Return: the fd.
 */
static int memfd(size_t size, int seals)
{
	int fd = memfd_create("check-ringfd", MFD_CLOEXEC | MFD_ALLOW_SEALING);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(ftruncate(fd, (off_t)size), 0);
	if (seals)
		ck_assert_int_eq(fcntl(fd, F_ADD_SEALS, seals), 0);
	return fd;
}

START_TEST(memfd_sealed_ok)
{
	uint64_t size = 0;
	int fd = memfd(8192, F_SEAL_SHRINK | F_SEAL_GROW);

	ck_assert_int_eq(ringfd_proto_check_memfd(fd, &size, err, sizeof(err)), 0);
	ck_assert_uint_eq(size, 8192);
	close(fd);
}
END_TEST

START_TEST(memfd_unsealed)
{
	uint64_t size = 0;
	int fd = memfd(8192, 0);

	EXPECT(ringfd_proto_check_memfd(fd, &size, err, sizeof(err)), -EPERM,
	       "memfd not sealed with F_SEAL_SHRINK (add it with F_ADD_SEALS)");
	close(fd);
}
END_TEST

START_TEST(memfd_grow_seal_only)
{
	uint64_t size = 0;
	int fd = memfd(8192, F_SEAL_GROW);

	EXPECT(ringfd_proto_check_memfd(fd, &size, err, sizeof(err)), -EPERM,
	       "memfd not sealed with F_SEAL_SHRINK (add it with F_ADD_SEALS)");
	close(fd);
}
END_TEST

START_TEST(not_memfd_file)
{
	char path[] = "/tmp/check-ringfd-XXXXXX";
	uint64_t size = 0;
	int fd = mkstemp(path);

	ck_assert_int_ge(fd, 0);
	unlink(path);
	ck_assert_int_eq(ftruncate(fd, 8192), 0);
	EXPECT(ringfd_proto_check_memfd(fd, &size, err, sizeof(err)), -EBADF, "fd 0 is not a memfd");
	close(fd);
}
END_TEST

START_TEST(not_memfd_pipe)
{
	uint64_t size = 0;
	int p[2];

	ck_assert_int_eq(pipe(p), 0);
	EXPECT(ringfd_proto_check_memfd(p[0], &size, err, sizeof(err)), -EBADF, "fd 0 is not a memfd");
	close(p[0]);
	close(p[1]);
}
END_TEST

START_TEST(not_memfd_eventfd)
{
	uint64_t size = 0;
	int fd = eventfd(0, EFD_CLOEXEC);

	EXPECT(ringfd_proto_check_memfd(fd, &size, err, sizeof(err)), -EBADF, "fd 0 is not a memfd");
	close(fd);
}
END_TEST

/**
 * evcheck() - ringfd_proto_check_eventfds() of a memfd SETUP of @nqp pairs
 * @fds: its fds
 * @nqp: queue pairs
 * Return: its answer.
 */
static int evcheck(const int *fds, unsigned int nqp)
{
	struct ringfd_proto_setup s = { .nqp = nqp };

	err[0] = '\0';
	return ringfd_proto_check_eventfds(&s, fds, err, sizeof(err));
}

/**
 * make_fds() - a sealed memfd and 4 * @nqp eventfds
 * @fds: RINGFD_PROTO_NFDS(@nqp) entries
 * @nqp: queue pairs
 */
static void make_fds(int *fds, unsigned int nqp)
{
	unsigned int i;

	fds[0] = memfd(65536, F_SEAL_SHRINK);
	for (i = 1; i < RINGFD_PROTO_NFDS(nqp); i++) {
		fds[i] = eventfd(0, EFD_CLOEXEC);
		ck_assert_int_ge(fds[i], 0);
	}
}

START_TEST(eventfds_ok)
{
	int fds[RINGFD_PROTO_NFDS(2)];

	make_fds(fds, 2);
	ck_assert_int_eq(evcheck(fds, 2), 0);
	ringfd_proto_close_fds(fds, RINGFD_PROTO_NFDS(2));
	ck_assert_int_eq(fds[0], -1);
}
END_TEST

START_TEST(kick_not_eventfd)
{
	int fds[RINGFD_PROTO_NFDS(1)], p[2];

	make_fds(fds, 1);
	ck_assert_int_eq(pipe(p), 0);
	close(fds[3]);
	fds[3] = p[0];
	EXPECT(evcheck(fds, 1), -EBADF,
	       "fd 3 (queue pair 0 rx kick) is not an eventfd");
	ringfd_proto_close_fds(fds, RINGFD_PROTO_NFDS(1));
	close(p[1]);
}
END_TEST

START_TEST(call_is_memfd)
{
	int fds[RINGFD_PROTO_NFDS(2)];

	make_fds(fds, 2);
	close(fds[6]);
	fds[6] = memfd(4096, F_SEAL_SHRINK);
	EXPECT(evcheck(fds, 2), -EBADF,
	       "fd 6 (queue pair 1 tx call) is not an eventfd");
	ringfd_proto_close_fds(fds, RINGFD_PROTO_NFDS(2));
}
END_TEST

/**
 * make_ring_fds() - 2 * @nqp stand-ins for vring fds (pipes' read ends) and
 * 4 * @nqp eventfds, as a SETUP of passed rings has them
 * @fds: RINGFD_PROTO_RINGS_NFDS(@nqp) entries
 * @nqp: queue pairs
 */
static void make_ring_fds(int *fds, unsigned int nqp)
{
	unsigned int i;
	int p[2];

	for (i = 0; i < 2 * nqp; i++) {
		ck_assert_int_eq(pipe2(p, O_CLOEXEC), 0);
		close(p[1]);
		fds[i] = p[0];
	}
	for (; i < RINGFD_PROTO_RINGS_NFDS(nqp); i++) {
		fds[i] = eventfd(0, EFD_CLOEXEC);
		ck_assert_int_ge(fds[i], 0);
	}
}

START_TEST(rings_eventfds_ok)
{
	int fds[RINGFD_PROTO_RINGS_NFDS(2)];
	struct ringfd_proto_setup s = { .nqp = 2, .rings = true };

	make_ring_fds(fds, 2);
	ck_assert_int_eq(ringfd_proto_check_eventfds(&s, fds, err, sizeof(err)), 0);
	ringfd_proto_close_fds(fds, RINGFD_PROTO_RINGS_NFDS(2));
}
END_TEST

START_TEST(rings_call_not_eventfd)
{
	int fds[RINGFD_PROTO_RINGS_NFDS(2)], p[2];
	struct ringfd_proto_setup s = { .nqp = 2, .rings = true };

	make_ring_fds(fds, 2);
	ck_assert_int_eq(pipe2(p, O_CLOEXEC), 0);
	close(fds[11]);
	fds[11] = p[1];
	EXPECT(ringfd_proto_check_eventfds(&s, fds, err, sizeof(err)), -EBADF,
	       "fd 11 (queue pair 1 rx call) is not an eventfd");
	ringfd_proto_close_fds(fds, RINGFD_PROTO_RINGS_NFDS(2));
	close(p[0]);
}
END_TEST

/**
 * expect_not_vring() - a SETUP of passed rings whose tx ring fd is @bad
 * @bad: the fd put in the tx ring's place (closed here), or -1: a pipe
 */
static void expect_not_vring(int bad)
{
	int fds[RINGFD_PROTO_RINGS_NFDS(1)];
	struct ringfd_proto_setup s = { .nqp = 1, .rings = true };

	s.qp[0].tx.num = s.qp[0].rx.num = 16;
	make_ring_fds(fds, 1);
	if (bad >= 0) {
		close(fds[0]);
		fds[0] = bad;
	}
	EXPECT(ringfd_proto_check_ring_fds(&s, fds, err, sizeof(err)), -EBADF,
	       "fd 0 (queue pair 0 tx ring) is not a vring fd");
	ringfd_proto_close_fds(fds, RINGFD_PROTO_RINGS_NFDS(1));
}

START_TEST(rings_ring_is_eventfd)
{
	expect_not_vring(eventfd(0, EFD_CLOEXEC));
}
END_TEST

START_TEST(rings_ring_is_memfd)
{
	expect_not_vring(memfd(4096, F_SEAL_SHRINK));
}
END_TEST

START_TEST(rings_ring_is_pipe)
{
	expect_not_vring(-1);
}
END_TEST

/**
 * send_fds() - send a message with fds on a socket
 * @s: socket
 * @buf: message
 * @len: its length
 * @fds: fds
 * @nfds: their count (<= 64)
 */
static void send_fds(int s, const void *buf, size_t len, const int *fds, unsigned int nfds)
{
	char cb[CMSG_SPACE(64 * sizeof(int))];
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *cm;

	if (nfds) {
		memset(cb, 0, sizeof(cb));
		mh.msg_control = cb;
		mh.msg_controllen = CMSG_SPACE(nfds * sizeof(int));
		cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(nfds * sizeof(int));
		memcpy(CMSG_DATA(cm), fds, nfds * sizeof(int));
	}
	ck_assert_int_eq(sendmsg(s, &mh, 0), (ssize_t)len);
}

START_TEST(recv_good)
{
	int sp[2], fds[RINGFD_PROTO_NFDS(1)], got[RINGFD_PROTO_MAX_FDS];
	uint8_t buf[RINGFD_PROTO_MAX_MSG + 1];
	unsigned int nfds;
	uint64_t size;
	int base;

	good();
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp), 0);
	base = count_fds();
	make_fds(fds, 1);
	send_fds(sp[0], &m, mlen, fds, RINGFD_PROTO_NFDS(1));
	ringfd_proto_close_fds(fds, RINGFD_PROTO_NFDS(1));
	ck_assert_int_eq(ringfd_proto_recv(sp[1], buf, sizeof(buf), got, &nfds, err, sizeof(err)),
			 (ssize_t)mlen);
	ck_assert_uint_eq(nfds, 5);
	ck_assert_int_eq(ringfd_proto_decode_setup(buf, mlen, nfds, &out, err, sizeof(err)), 0);
	ck_assert_int_eq(ringfd_proto_check_memfd(got[0], &size, err, sizeof(err)), 0);
	ck_assert_int_eq(ringfd_proto_check_layout(&out, size, err, sizeof(err)), 0);
	ck_assert_int_eq(evcheck(got, 1), 0);
	ringfd_proto_close_fds(got, nfds);
	ck_assert_int_eq(count_fds(), base);
	close(sp[0]);
	ck_assert_int_eq(ringfd_proto_recv(sp[1], buf, sizeof(buf), got, &nfds, err, sizeof(err)), 0);
	ck_assert_int_eq(ringfd_proto_recv(sp[1], buf, sizeof(buf), got, &nfds, err, sizeof(err)), 0);
	close(sp[1]);
}
END_TEST

START_TEST(recv_nothing)
{
	int sp[2], got[RINGFD_PROTO_MAX_FDS];
	uint8_t buf[64];
	unsigned int nfds;

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp), 0);
	ck_assert_int_eq(ringfd_proto_recv(sp[1], buf, sizeof(buf), got, &nfds, err, sizeof(err)), -EAGAIN);
	close(sp[0]);
	close(sp[1]);
}
END_TEST

START_TEST(recv_extra_fds_closed)
{
	int sp[2], fds[RINGFD_PROTO_NFDS(1) + 2], got[RINGFD_PROTO_MAX_FDS];
	uint8_t buf[RINGFD_PROTO_MAX_MSG + 1];
	unsigned int nfds;
	ssize_t n;
	int base;

	good();
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp), 0);
	base = count_fds();
	make_fds(fds, 1);
	fds[5] = eventfd(0, 0);
	fds[6] = eventfd(0, 0);
	send_fds(sp[0], &m, mlen, fds, 7);
	ringfd_proto_close_fds(fds, 7);
	n = ringfd_proto_recv(sp[1], buf, sizeof(buf), got, &nfds, err, sizeof(err));
	ck_assert_int_eq(n, (ssize_t)mlen);
	ck_assert_uint_eq(nfds, 7);
	ck_assert_int_eq(count_fds(), base + 7);
	EXPECT(ringfd_proto_decode_setup(buf, (size_t)n, nfds, &out, err, sizeof(err)), -EBADF,
	       "7 fds for 1 queue pairs (want 5: the memfd, then tx kick, tx call, rx kick, rx call per pair)");
	ringfd_proto_close_fds(got, nfds);
	ck_assert_int_eq(count_fds(), base);
	close(sp[0]);
	close(sp[1]);
}
END_TEST

START_TEST(recv_too_many_fds_closed)
{
	int sp[2], fds[50], got[RINGFD_PROTO_MAX_FDS], i;
	uint8_t buf[RINGFD_PROTO_MAX_MSG + 1];
	unsigned int nfds = 99;
	int base;

	good();
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp), 0);
	base = count_fds();
	for (i = 0; i < 50; i++)
		fds[i] = eventfd(0, EFD_CLOEXEC);
	send_fds(sp[0], &m, mlen, fds, 50);
	ringfd_proto_close_fds(fds, 50);
	EXPECT(ringfd_proto_recv(sp[1], buf, sizeof(buf), got, &nfds, err, sizeof(err)), -EBADF,
	       "more than 48 fds (all closed)");
	ck_assert_uint_eq(nfds, 0);
	ck_assert_int_eq(count_fds(), base);
	close(sp[0]);
	close(sp[1]);
}
END_TEST

START_TEST(recv_long_message_closed)
{
	int sp[2], fds[RINGFD_PROTO_NFDS(1)], got[RINGFD_PROTO_MAX_FDS];
	uint8_t big[RINGFD_PROTO_MAX_MSG + 64] = { 0 }, buf[RINGFD_PROTO_MAX_MSG + 1];
	unsigned int nfds = 99;
	int base;

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp), 0);
	base = count_fds();
	make_fds(fds, 1);
	send_fds(sp[0], big, sizeof(big), fds, RINGFD_PROTO_NFDS(1));
	ringfd_proto_close_fds(fds, RINGFD_PROTO_NFDS(1));
	EXPECT(ringfd_proto_recv(sp[1], buf, sizeof(buf), got, &nfds, err, sizeof(err)), -EMSGSIZE,
	       "message longer than 545 bytes");
	ck_assert_uint_eq(nfds, 0);
	ck_assert_int_eq(count_fds(), base);
	close(sp[0]);
	close(sp[1]);
}
END_TEST

START_TEST(reply_format)
{
	struct vringnet_rfd_reply r;
	int sp[2];

	ringfd_proto_make_reply(&r, 0, VRINGNET_RFD_FEATURES, "user");
	ck_assert_uint_eq(r.hdr.magic, VRINGNET_RFD_MAGIC);
	ck_assert_uint_eq(r.hdr.version, 1);
	ck_assert_uint_eq(r.hdr.size, sizeof(r));
	ck_assert_uint_eq(r.hdr.type, VRINGNET_RFD_OK);
	ck_assert_uint_eq(r.features, VRINGNET_RFD_FEATURES);
	ck_assert_str_eq(r.text, "user");
	ringfd_proto_make_reply(&r, EINVAL, VRINGNET_RFD_FEATURES, "bad");
	ck_assert_uint_eq(r.hdr.type, VRINGNET_RFD_ERROR);
	ck_assert_int_eq(r.error, EINVAL);
	ck_assert_uint_eq(r.features, 0);
	memset(err, 'x', 300 > sizeof(err) ? sizeof(err) - 1 : 299);
	err[sizeof(err) - 1] = '\0';
	ringfd_proto_make_reply(&r, EIO, 0, err);
	ck_assert_uint_eq(strlen(r.text), sizeof(r.text) - 1);
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp), 0);
	ck_assert_int_eq(ringfd_proto_send_reply(sp[0], EBUSY, 0, "busy"), 0);
	ck_assert_int_eq(recv(sp[1], &r, sizeof(r) + 1, 0), (ssize_t)sizeof(r));
	ck_assert_int_eq(r.error, EBUSY);
	close(sp[1]);
	ck_assert_int_eq(ringfd_proto_send_reply(sp[0], EBUSY, 0, "busy"), -EPIPE);
	close(sp[0]);
}
END_TEST

/**
 * ringfd_suite() - the ring-fd protocol suite
 *
 * Return: the suite.
 */
Suite *ringfd_suite(void)
{
	Suite *s = runner_suite_create("ringfd");

	RUNNER_ADD_TEST(s, good_setup);
	RUNNER_ADD_TEST(s, short_header);
	RUNNER_ADD_TEST(s, empty_message);
	RUNNER_ADD_TEST(s, bad_magic);
	RUNNER_ADD_TEST(s, bad_version);
	RUNNER_ADD_TEST(s, bad_type);
	RUNNER_ADD_TEST(s, size_field_short);
	RUNNER_ADD_TEST(s, size_field_long);
	RUNNER_ADD_TEST(s, fixed_part_short);
	RUNNER_ADD_TEST(s, long_for_nqp);
	RUNNER_ADD_TEST(s, short_for_nqp);
	RUNNER_ADD_TEST(s, nqp_zero);
	RUNNER_ADD_TEST(s, nqp_nine);
	RUNNER_ADD_TEST(s, vnet_hdr_0);
	RUNNER_ADD_TEST(s, vnet_hdr_10);
	RUNNER_ADD_TEST(s, unknown_feature);
	RUNNER_ADD_TEST(s, unknown_flag);
	RUNNER_ADD_TEST(s, rings_setup_good);
	RUNNER_ADD_TEST(s, rings_two_qp_good);
	RUNNER_ADD_TEST(s, rings_memfd_count);
	RUNNER_ADD_TEST(s, rings_desc_set);
	RUNNER_ADD_TEST(s, rings_used_set);
	RUNNER_ADD_TEST(s, rings_num_checked);
	RUNNER_ADD_TEST(s, ring_reserved_set);
	RUNNER_ADD_TEST(s, missing_fds);
	RUNNER_ADD_TEST(s, one_fd_short);
	RUNNER_ADD_TEST(s, extra_fd);
	RUNNER_ADD_TEST(s, num_zero);
	RUNNER_ADD_TEST(s, num_not_pow2);
	RUNNER_ADD_TEST(s, num_65536);
	RUNNER_ADD_TEST(s, num_32768_ok);
	RUNNER_ADD_TEST(s, desc_misaligned);
	RUNNER_ADD_TEST(s, avail_misaligned);
	RUNNER_ADD_TEST(s, used_misaligned);
	RUNNER_ADD_TEST(s, second_qp_checked);
	RUNNER_ADD_TEST(s, memfd_too_small);
	RUNNER_ADD_TEST(s, memfd_exact_fit);
	RUNNER_ADD_TEST(s, offset_beyond_memfd);
	RUNNER_ADD_TEST(s, offset_wraps);
	RUNNER_ADD_TEST(s, overlap_same_ring);
	RUNNER_ADD_TEST(s, overlap_other_ring);
	RUNNER_ADD_TEST(s, overlap_other_qp);
	RUNNER_ADD_TEST(s, adjacent_parts_ok);
	RUNNER_ADD_TEST(s, memfd_sealed_ok);
	RUNNER_ADD_TEST(s, memfd_unsealed);
	RUNNER_ADD_TEST(s, memfd_grow_seal_only);
	RUNNER_ADD_TEST(s, not_memfd_file);
	RUNNER_ADD_TEST(s, not_memfd_pipe);
	RUNNER_ADD_TEST(s, not_memfd_eventfd);
	RUNNER_ADD_TEST(s, eventfds_ok);
	RUNNER_ADD_TEST(s, kick_not_eventfd);
	RUNNER_ADD_TEST(s, call_is_memfd);
	RUNNER_ADD_TEST(s, rings_eventfds_ok);
	RUNNER_ADD_TEST(s, rings_call_not_eventfd);
	RUNNER_ADD_TEST(s, rings_ring_is_eventfd);
	RUNNER_ADD_TEST(s, rings_ring_is_memfd);
	RUNNER_ADD_TEST(s, rings_ring_is_pipe);
	RUNNER_ADD_TEST(s, recv_good);
	RUNNER_ADD_TEST(s, recv_nothing);
	RUNNER_ADD_TEST(s, recv_extra_fds_closed);
	RUNNER_ADD_TEST(s, recv_too_many_fds_closed);
	RUNNER_ADD_TEST(s, recv_long_message_closed);
	RUNNER_ADD_TEST(s, reply_format);
	return s;
}
