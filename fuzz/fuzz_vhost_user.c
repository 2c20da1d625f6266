// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz_vhost_user.c - libFuzzer target for the vhost-user back-end
 *
 * The input after its first byte is a byte stream a front-end sends: it is
 * written into a socketpair and vhost_user_dev_handle() reads, checks and answers it
 * until it fails (every stream ends in an error: at worst the EOF).  No fds
 * travel with the stream, so requests that need one end in their error
 * path.  When bit 0 of the first byte is set, the connection starts with a
 * memory table already mapped (a 64 KiB memfd at guest 0, front-end address
 * 0x10000), so ring sizes, addresses and the queue start path are reached;
 * bit 1 selects two queue pairs.  A queue handed to the owner is touched in
 * every ring entry, so a wrong translation shows up under ASan.
 * Seeds: fuzz/corpus/vhost_user/.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "vhost_user.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FZ_MEM_SIZE	0x10000u
#define FZ_USER_BASE	0x10000u

/**
 * fz_touch_ring() - read and write every byte of a ring the engine would
 * @r: the ring
 */
static void fz_touch_ring(const struct engine_ring *r)
{
	volatile uint8_t *p;
	size_t i;

	p = r->desc;
	for (i = 0; i < 16u * r->num; i++)
		(void)p[i];
	p = r->avail;
	for (i = 0; i < 6u + 2u * r->num; i++)
		(void)p[i];
	p = r->used;
	for (i = 0; i < 6u + 8u * r->num; i++)
		p[i] = p[i];
}

/**
 * fz_queue_state() - owner callback: check what a started queue describes
 * @dev: the connection
 * @qp: queue pair
 * @ready: start or stop
 *
 * Return: 0.
 */
static int fz_queue_state(struct vhost_user_dev *dev, unsigned int qp, bool ready)
{
	struct engine_queue_config cfg;

	if (!ready) {
		vhost_user_dev_set_last_avail(dev, 2 * qp, 1);
		return 0;
	}
	vhost_user_dev_queue_config(dev, qp, &cfg);
	if (cfg.tx.num == 0 || cfg.rx.num == 0 || cfg.tx.num > VHOST_USER_MAX_RING_NUM ||
	    (cfg.tx.num & (cfg.tx.num - 1)))
		abort();
	fz_touch_ring(&cfg.tx);
	fz_touch_ring(&cfg.rx);
	return 0;
}

static const struct vhost_user_ops fz_ops = { .queue_state = fz_queue_state };

/**
 * fz_premap() - give the connection a memory table before the stream
 * @dev: the connection
 */
static void fz_premap(struct vhost_user_dev *dev)
{
	struct vhost_user_msg *msg = calloc(1, sizeof(*msg));
	int fd = memfd_create("fuzz-guest", MFD_CLOEXEC | MFD_ALLOW_SEALING);

	if (!msg || fd < 0 || ftruncate(fd, FZ_MEM_SIZE) < 0 ||
	    fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK) < 0)
		abort();
	msg->hdr.request = VUM_SET_MEM_TABLE;
	msg->hdr.flags = VUM_VERSION;
	msg->hdr.size = VUM_SIZE_MEM(1);
	msg->payload.mem.nregions = 1;
	msg->payload.mem.regions[0].guest_addr = 0;
	msg->payload.mem.regions[0].size = FZ_MEM_SIZE;
	msg->payload.mem.regions[0].user_addr = FZ_USER_BASE;
	msg->payload.mem.regions[0].mmap_offset = 0;
	msg->fds[0] = fd;
	msg->nfds = 1;
	if (vhost_user_dev_process(dev, msg) < 0)
		abort();
	vhost_user_msg_close_fds(msg);
	free(msg);
}

/**
 * LLVMFuzzerTestOneInput() - run one front-end byte stream
 * @data: mode byte, then the stream
 * @size: bytes
 *
 * Return: 0.
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct vhost_user_dev dev;
	uint8_t drain[4096];
	int sv[2], sndbuf = 1 << 20, ret, rounds;
	uint8_t mode;

	if (size < 1 || size > 60000)
		return 0;
	mode = data[0];
	data++;
	size--;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, sv) < 0)
		abort();
	setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf));
	if (size && write(sv[0], data, size) != (ssize_t)size)
		abort();
	shutdown(sv[0], SHUT_WR);

	vhost_user_dev_init(&dev, sv[1], (mode & 2) ? 2 : 1, &fz_ops, NULL);
	if (mode & 1)
		fz_premap(&dev);
	for (rounds = 0; rounds < 10000; rounds++) {
		ret = vhost_user_dev_handle(&dev);
		while (read(sv[0], drain, sizeof(drain)) > 0)
			;
		if (ret < 0)
			break;
	}
	if (ret >= 0 || !dev.err[0])
		abort();	/* every stream ends in an error with a message */
	vhost_user_dev_reset(&dev);
	close(sv[0]);
	close(sv[1]);
	return 0;
}
