// SPDX-License-Identifier: GPL-2.0
/*
 * vringfd-forward.c - join two tap devices through vring fds, zero-copy:
 * the RX ring of one tap feeds the TX ring of the other, both ways.
 *
 *   vringfd-forward [-n] TAP_A TAP_B
 *
 * Creates (or attaches to) the taps TAP_A and TAP_B with IFF_VNET_HDR,
 * turns checksum and TSO offloads on (-n: off), and moves frames until
 * SIGTERM or SIGINT; then prints one line per direction and exits 0:
 *
 *   fwd A->B rx_frames N tx_frames N dropped N max_frame N
 *
 * where rx_frames are the frames the RX ring of A filled, tx_frames the ones
 * the TX ring of B sent, dropped the sum of the drop counters of both
 * rings, and max_frame the largest frame in bytes (virtio-net header
 * excluded; above the MTU only with TSO).  "ready" is printed on stdout
 * when both taps exist.
 *
 * Each RX buffer is 4 KiB; with VRINGFD_TAP_F_MRG_RXBUF a 64 KiB TSO frame
 * spans up to 17 of them and goes out on the other tap as one chain of
 * those same buffers (no copy in user space), after which they are posted
 * again.
 */
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <linux/if_tun.h>
#include <linux/virtio_net.h>

#include "vringfd.h"

#define FWD_RXNUM	256
#define FWD_TXNUM	1024
#define FWD_BUFSZ	4096
#define FWD_HDR		((unsigned int)sizeof(struct virtio_net_hdr_v1))
#define FWD_MAXSEG	32

static volatile sig_atomic_t fwd_stop;

/**
 * struct fwd_ring - one ring with its memory and vring fd
 * @mem: ring memory
 * @r: driver side
 * @fd: vring fd
 */
struct fwd_ring {
	void *mem;
	struct vringfd_ring r;
	int fd;
};

/**
 * struct fwd_dir - one direction: RX ring of the source, TX ring of the sink
 * @name: "A->B" or "B->A"
 * @rx: RX ring attached to the source tap
 * @tx: TX ring attached to the sink tap
 * @bufs: FWD_RXNUM buffers of FWD_BUFSZ bytes for @rx
 * @max_frame: largest frame forwarded
 */
struct fwd_dir {
	const char *name;
	struct fwd_ring rx, tx;
	uint8_t *bufs;
	size_t max_frame;
};

/**
 * struct fwd_frame - buffers of one frame in flight on a TX ring
 * @n: number of buffers
 * @buf: the buffers (to post again on the RX ring)
 */
struct fwd_frame {
	unsigned int n;
	void *buf[FWD_MAXSEG];
};

/**
 * fwd_on_signal() - SIGTERM/SIGINT: stop the loop
 * @sig: unused
 */
static void fwd_on_signal(int sig)
{
	(void)sig;
	fwd_stop = 1;
}

/**
 * fwd_tap_open() - open tap @name with a 12-byte virtio-net header, set offloads
 * @name: interface name
 * @offload: turn checksum/TSO offloads on
 *
 * Return: the fd, or -1 (message printed).
 */
static int fwd_tap_open(const char *name, int offload)
{
	unsigned int off = offload ? TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6 : 0;
	int fd, sz = (int)FWD_HDR;
	struct ifreq ifr;

	fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "vringfd-forward: open /dev/net/tun: %s\n", strerror(errno));
		return -1;
	}
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
	ifr.ifr_flags = IFF_TAP | IFF_NO_PI | IFF_VNET_HDR;
	/*
	 * The tap is ours to configure: vringfd.ko takes the rings' header
	 * length (FWD_HDR) as a statement of what the tap uses and sets
	 * nothing on it (tun's default header size is 10).
	 */
	if (ioctl(fd, TUNSETIFF, &ifr) < 0 || ioctl(fd, TUNSETVNETHDRSZ, &sz) < 0 ||
	    ioctl(fd, TUNSETOFFLOAD, off) < 0) {
		fprintf(stderr, "vringfd-forward: tap %s: %s\n", name, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

/**
 * fwd_ring_make() - a ring of @num entries attached to @tap in @dir
 * @fr: filled in
 * @num: ring size
 * @tap: tap fd
 * @dir: VRINGFD_DIR_*
 *
 * Return: 0, or -1 (message printed).
 */
static int fwd_ring_make(struct fwd_ring *fr, unsigned int num, int tap, unsigned int dir)
{
	size_t size = vringfd_ring_size(num, 4096);
	struct vringfd_tap a;

	fr->mem = aligned_alloc(4096, (size + 4095) & ~(size_t)4095);
	if (!fr->mem || vringfd_ring_init(&fr->r, fr->mem, num, 4096, 0) < 0) {
		fprintf(stderr, "vringfd-forward: ring of %u: no memory\n", num);
		return -1;
	}
	fr->fd = vringfd_create(num, fr->r.vr.desc, fr->r.vr.avail, fr->r.vr.used,
				&fr->r.last_used, 0);
	if (fr->fd < 0) {
		fprintf(stderr, "vringfd-forward: vringfd_create: %s\n", strerror(errno));
		return -1;
	}
	memset(&a, 0, sizeof(a));
	a.tap_fd = tap;
	a.dir = dir;
	a.vnet_hdr_len = FWD_HDR;
	a.flags = dir == VRINGFD_DIR_RX ? VRINGFD_TAP_F_MRG_RXBUF : 0;
	if (vringfd_attach_tap_ex(fr->fd, &a) < 0) {
		fprintf(stderr, "vringfd-forward: attach: %s\n", strerror(errno));
		return -1;
	}
	return 0;
}

/**
 * fwd_post() - post one RX buffer
 * @d: direction
 * @buf: the buffer (FWD_BUFSZ bytes)
 */
static void fwd_post(struct fwd_dir *d, void *buf)
{
	struct iovec v = { buf, FWD_BUFSZ };

	vringfd_ring_add(&d->rx.r, NULL, 0, &v, 1, buf);
}

/**
 * fwd_setup() - rings and buffers of one direction
 * @d: filled in
 * @name: label
 * @src: source tap fd
 * @dst: sink tap fd
 *
 * Return: 0 or -1.
 */
static int fwd_setup(struct fwd_dir *d, const char *name, int src, int dst)
{
	unsigned int i;

	d->name = name;
	d->bufs = mmap(NULL, (size_t)FWD_RXNUM * FWD_BUFSZ, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (d->bufs == MAP_FAILED)
		return -1;
	if (fwd_ring_make(&d->rx, FWD_RXNUM, src, VRINGFD_DIR_RX) ||
	    fwd_ring_make(&d->tx, FWD_TXNUM, dst, VRINGFD_DIR_TX))
		return -1;
	for (i = 0; i < FWD_RXNUM; i++)
		fwd_post(d, d->bufs + (size_t)i * FWD_BUFSZ);
	vringfd_ring_publish(&d->rx.r);
	return 0;
}

/**
 * fwd_flush_tx() - send what was queued on the TX ring, recycle its buffers
 * @d: direction
 *
 * Return: 0, or -1 when the sink tap went away or the ring broke.
 */
static int fwd_flush_tx(struct fwd_dir *d)
{
	struct fwd_frame *f;
	uint32_t len;
	unsigned int i;
	int again = 0;
	ssize_t w;

	vringfd_ring_publish(&d->tx.r);
	do
		w = write(d->tx.fd, "", 1);
	while (w > 0 || (w < 0 && errno == EINTR));
	if (w < 0) {
		fprintf(stderr, "vringfd-forward: %s: TX: %s\n", d->name, strerror(errno));
		return -1;
	}
	while ((f = vringfd_ring_get_used(&d->tx.r, &len))) {
		for (i = 0; i < f->n; i++)
			fwd_post(d, f->buf[i]);
		free(f);
		again = 1;
	}
	if (again)
		vringfd_ring_publish(&d->rx.r);
	return 0;
}

/**
 * fwd_pump() - move everything the source tap has to the sink tap
 * @d: direction
 *
 * Return: 0, or -1 when a tap went away or a ring broke.
 */
static int fwd_pump(struct fwd_dir *d)
{
	struct fwd_frame *f = NULL;
	struct virtio_net_hdr_v1 *h;
	struct iovec seg[FWD_MAXSEG];
	unsigned int want = 0;
	uint32_t len;
	size_t flen = 0;
	uint8_t *b;
	char dummy;
	ssize_t r;

	for (;;) {
		r = read(d->rx.fd, &dummy, 0);
		if (r < 0) {
			fprintf(stderr, "vringfd-forward: %s: RX: %s\n", d->name, strerror(errno));
			return -1;
		}
		if (!vringfd_ring_more_used(&d->rx.r))
			break;
		while ((b = vringfd_ring_get_used(&d->rx.r, &len))) {
			if (!f) {
				h = (void *)b;
				want = h->num_buffers;
				f = calloc(1, sizeof(*f));
				if (!f || want < 1 || want > FWD_MAXSEG || len < FWD_HDR) {
					/* cannot happen with this module; recycle */
					free(f);
					f = NULL;
					fwd_post(d, b);
					continue;
				}
				flen = 0;
			}
			seg[f->n].iov_base = b;
			seg[f->n].iov_len = len;
			f->buf[f->n++] = b;
			flen += len;
			if (f->n < want)
				continue;
			if (vringfd_ring_add(&d->tx.r, seg, f->n, NULL, 0, f) == -ENOSPC) {
				if (fwd_flush_tx(d))
					return -1;
				vringfd_ring_add(&d->tx.r, seg, f->n, NULL, 0, f);
			}
			if (flen - FWD_HDR > d->max_frame)
				d->max_frame = flen - FWD_HDR;
			f = NULL;
		}
		if (fwd_flush_tx(d))
			return -1;
	}
	if (f) {
		/* a frame whose heads did not all arrive: cannot happen (the
		 * kernel publishes a frame's heads together); recycle */
		unsigned int i;

		for (i = 0; i < f->n; i++)
			fwd_post(d, f->buf[i]);
		free(f);
		vringfd_ring_publish(&d->rx.r);
	}
	return 0;
}

/**
 * fwd_report() - print the counters of one direction
 * @d: direction
 */
static void fwd_report(struct fwd_dir *d)
{
	struct vringfd_stats rx, tx;

	memset(&rx, 0, sizeof(rx));
	memset(&tx, 0, sizeof(tx));
	vringfd_get_stats(d->rx.fd, &rx);
	vringfd_get_stats(d->tx.fd, &tx);
	printf("fwd %s rx_frames %llu tx_frames %llu dropped %llu max_frame %zu\n", d->name,
	       (unsigned long long)rx.frames, (unsigned long long)tx.frames,
	       (unsigned long long)(rx.drop_bad_chain + rx.drop_too_big + rx.drop_bad_hdr +
				    rx.drop_bad_addr + rx.drop_tap + tx.drop_bad_chain +
				    tx.drop_too_big + tx.drop_bad_hdr + tx.drop_bad_addr +
				    tx.drop_tap),
	       d->max_frame);
}

int main(int argc, char **argv)
{
	struct fwd_dir ab, ba;
	struct epoll_event ev[4];
	int offload = 1, a, b, ep, i, n, rc = 0;
	struct sigaction sa;

	if (argc > 1 && !strcmp(argv[1], "-n")) {
		offload = 0;
		argv++;
		argc--;
	}
	if (argc != 3) {
		fprintf(stderr, "usage: vringfd-forward [-n] TAP_A TAP_B\n");
		return 2;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = fwd_on_signal;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	a = fwd_tap_open(argv[1], offload);
	b = fwd_tap_open(argv[2], offload);
	if (a < 0 || b < 0)
		return 1;
	memset(&ab, 0, sizeof(ab));
	memset(&ba, 0, sizeof(ba));
	if (fwd_setup(&ab, "A->B", a, b) || fwd_setup(&ba, "B->A", b, a))
		return 1;
	printf("ready\n");
	fflush(stdout);

	ep = epoll_create1(EPOLL_CLOEXEC);
	ev[0].events = EPOLLIN;
	ev[0].data.ptr = &ab;
	epoll_ctl(ep, EPOLL_CTL_ADD, ab.rx.fd, &ev[0]);
	ev[0].data.ptr = &ba;
	epoll_ctl(ep, EPOLL_CTL_ADD, ba.rx.fd, &ev[0]);
	while (!fwd_stop) {
		n = epoll_wait(ep, ev, 4, 200);
		if (n < 0 && errno != EINTR) {
			rc = 1;
			break;
		}
		for (i = 0; i < n; i++) {
			if (ev[i].events & (EPOLLERR | EPOLLHUP)) {
				fprintf(stderr, "vringfd-forward: %s: a tap went away\n",
					((struct fwd_dir *)ev[i].data.ptr)->name);
				fwd_stop = 1;
				rc = 1;
			}
		}
		/* pump both on any wake-up (and on the timeout, as a kick) */
		if (fwd_pump(&ab) || fwd_pump(&ba)) {
			rc = 1;
			break;
		}
	}
	fwd_report(&ab);
	fwd_report(&ba);
	fflush(stdout);
	return rc;
}
