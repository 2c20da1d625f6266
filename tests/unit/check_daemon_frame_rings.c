// SPDX-License-Identifier: GPL-2.0
/*
 * check_daemon_frame_rings.c - the daemon-driven ring pair (daemon/frame_rings.c)
 * on the queue-pair pump (daemon/vq.c, a self-driven pair)
 *
 * A fake engine plays the device with libvringfd's vringfd_dev_*: its tx()
 * records every chain as a frame, its rx() fills posted buffers with queued
 * test frames; its rx fd is an eventfd the test makes readable, and the
 * pump's rx walk runs from a real loop.  Checked: one tx() per flush for a
 * batch, buffers recycled, zero-length and oversized frames refused, rx
 * buffers reposted, one budget of rx per service, a broken engine ring
 * reported to the port (which may close the pair there), counters kept on
 * close, and the pair staying on the main thread when there are workers.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "unit/runner.h"
#include "frame_rings.h"
#include "loop.h"
#include "port.h"
#include "worker.h"

Suite *frame_rings_suite(void);

/**
 * struct engine_queue - the fake engine's queue
 * @tx: device view of the tx ring
 * @rx: device view of the rx ring
 * @rx_fd: an eventfd standing for the tap (readable: frames wait)
 */
struct engine_queue {
	struct vringfd_dev tx;
	struct vringfd_dev rx;
	int rx_fd;
};

static struct {
	unsigned int tx_calls;
	unsigned int frames;
	size_t last_len;
	uint8_t last_first;
	unsigned int rx_queued;		/* frames the "tap" has for rx() */
	int fail_open;
	int fail_tx;			/* tx() answers -EIO */
	unsigned int tx_weight;		/* chains per tx() call, 0: all */
	unsigned int rx_fail_after;	/* rx() answers -EPIPE after so many, 0: never */
} fk;

/**
 * fk_open() - fake engine_ops.open
 * @cfg: queue config
 * @err: message buffer
 * @errlen: its size
 *
 * Return: the queue or NULL.
 */
static struct engine_queue *fk_open(const struct engine_queue_config *cfg, char *err, size_t errlen)
{
	struct engine_queue *q;

	if (fk.fail_open) {
		snprintf(err, errlen, "fake engine refuses");
		return NULL;
	}
	ck_assert_uint_eq(cfg->vnet_hdr_len, FRAME_RINGS_HDR);
	ck_assert_ptr_null(cfg->regions);
	q = calloc(1, sizeof(*q));
	ck_assert_int_eq(vringfd_dev_init(&q->tx, cfg->tx.num, cfg->tx.desc, cfg->tx.avail,
					  cfg->tx.used, 0), 0);
	ck_assert_int_eq(vringfd_dev_init(&q->rx, cfg->rx.num, cfg->rx.desc, cfg->rx.avail,
					  cfg->rx.used, 0), 0);
	q->rx_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	ck_assert_int_ge(q->rx_fd, 0);
	return q;
}

/**
 * fk_tx() - fake engine_ops.tx: take every chain as one frame
 * @q: queue
 * @budget: charged per frame; the walk stops when it is spent
 *
 * Return: chains consumed.
 */
static int fk_tx(struct engine_queue *q, struct engine_budget *budget)
{
	struct vringfd_chain ch;
	struct iovec iov[4];
	int n = 0;

	fk.tx_calls++;
	if (fk.fail_tx)
		return -EIO;
	while ((!fk.tx_weight || (unsigned int)n < fk.tx_weight) &&
	       !engine_budget_spent(budget) && vringfd_dev_get_chain(&q->tx, &ch, iov, 4) > 0) {
		ck_assert_uint_eq(ch.nout, 1);
		fk.frames++;
		ck_assert_uint_gt(ch.out_len, FRAME_RINGS_HDR);
		/* the header is zero, the frame follows it */
		ck_assert_int_eq(((uint8_t *)ch.out[0].iov_base)[0], 0);
		ck_assert_int_eq(((uint8_t *)ch.out[0].iov_base)[FRAME_RINGS_HDR - 1], 0);
		fk.last_len = ch.out_len - FRAME_RINGS_HDR;
		fk.last_first = ((uint8_t *)ch.out[0].iov_base)[FRAME_RINGS_HDR];
		engine_budget_take(budget, fk.last_len);
		vringfd_dev_put_used(&q->tx, ch.head, 0);
		n++;
	}
	vringfd_dev_publish_used(&q->tx);
	return n;
}

/**
 * fk_rx() - fake engine_ops.rx: one 100-byte frame per posted buffer
 * @q: queue
 * @budget: charged per frame; filling stops when it is spent
 * @starved: set when frames wait but no buffer is posted
 *
 * Return: buffers filled, or -EPIPE after fk.rx_fail_after of them.
 */
static int fk_rx(struct engine_queue *q, struct engine_budget *budget, bool *starved)
{
	struct vringfd_chain ch;
	struct iovec iov[4];
	int n = 0;

	*starved = false;
	while (fk.rx_queued && !engine_budget_spent(budget)) {
		if (vringfd_dev_get_chain(&q->rx, &ch, iov, 4) <= 0) {
			*starved = true;
			break;
		}
		ck_assert_uint_eq(ch.nin, 1);
		ck_assert_uint_ge(ch.in_len, FRAME_RINGS_HDR + 65535);
		memset(ch.in[0].iov_base, 0, FRAME_RINGS_HDR);
		memset((uint8_t *)ch.in[0].iov_base + FRAME_RINGS_HDR, 0xab, 100);
		vringfd_dev_put_used(&q->rx, ch.head, FRAME_RINGS_HDR + 100);
		fk.rx_queued--;
		engine_budget_take(budget, 100);
		n++;
		if (fk.rx_fail_after && (unsigned int)n == fk.rx_fail_after) {
			vringfd_dev_publish_used(&q->rx);
			return -EPIPE;	/* the tap went away after these */
		}
	}
	vringfd_dev_publish_used(&q->rx);
	return n;
}

/**
 * fk_rx_fd() - fake engine_ops.rx_fd
 * @q: queue
 *
 * Return: the queue's eventfd.
 */
static int fk_rx_fd(struct engine_queue *q)
{
	return q->rx_fd;
}

/**
 * fk_get_stats() - fake engine_ops.get_stats
 * @q: queue
 * @tx: out
 * @rx: out
 */
static void fk_get_stats(struct engine_queue *q, struct engine_stats *tx, struct engine_stats *rx)
{
	tx->frames = fk.frames;
}

/**
 * fk_close() - fake engine_ops.close
 * @q: queue
 */
static void fk_close(struct engine_queue *q, uint16_t last_avail[2])
{
	close(q->rx_fd);
	free(q);
}

/**
 * fk_enable_notify() - fake engine_ops.enable_notify: chains left in the ring
 * @q: queue
 * @dir: ring
 *
 * Return: true when the driver's ring has chains not taken.
 */
static bool fk_enable_notify(struct engine_queue *q, enum engine_dir dir)
{
	return vringfd_dev_enable_notify(dir == ENGINE_TX ? &q->tx : &q->rx);
}

static const struct engine_ops fk_ops = {
	.name = "fake",
	.open = fk_open,
	.tx = fk_tx,
	.enable_notify = fk_enable_notify,
	.rx = fk_rx,
	.rx_fd = fk_rx_fd,
	.get_stats = fk_get_stats,
	.close = fk_close,
};

static struct frame_rings_pair fp;
static unsigned int delivered, batches, first_batch, broken_calls;
static char broken_why[400];
static struct engine_stats gone_tx, gone_rx;
static struct tap_dev t_tap;
static struct port t_port;

/**
 * t_deliver() - frame_rings_ops.deliver: count delivered frames
 * @opaque: unused
 * @frame: frame
 * @len: length
 */
static void t_deliver(void *opaque, const uint8_t *frame, size_t len)
{
	ck_assert_uint_eq(len, 100);
	ck_assert_int_eq(frame[0], 0xab);
	delivered++;
}

/**
 * t_delivered() - frame_rings_ops.delivered: one rx service is over
 * @opaque: unused
 *
 * Notes the frames of the first service; stops the loop when the fake
 * tap has nothing left.
 */
static void t_delivered(void *opaque)
{
	if (!batches++)
		first_batch = delivered;
	if (!fk.rx_queued)
		loop_quit(t_port.loop, 0);
}

/**
 * t_broken() - frame_rings_ops.broken: note why, close the pair (as ports do),
 *		 stop the loop
 * @opaque: unused
 * @why: the reason
 */
static void t_broken(void *opaque, const char *why)
{
	broken_calls++;
	snprintf(broken_why, sizeof(broken_why), "%s", why);
	frame_rings_close(&fp, &gone_tx, &gone_rx);
	loop_quit(t_port.loop, 0);
}

static const struct frame_rings_ops t_ops = {
	.deliver = t_deliver,
	.delivered = t_delivered,
	.broken = t_broken,
};

/**
 * t_signal() - loop_signal_fn, unused
 * @loop: the loop
 * @signo: the signal
 * @opaque: unused
 */
static void t_signal(struct loop *loop, int signo, void *opaque)
{
}

/**
 * new_port() - the test port: the fake engine, no tap queue, a loop of its own
 */
static void new_port(void)
{
	char err[256];

	memset(&fk, 0, sizeof(fk));
	delivered = batches = first_batch = broken_calls = 0;
	memset(&gone_tx, 0, sizeof(gone_tx));
	memset(&gone_rx, 0, sizeof(gone_rx));
	memset(&t_port, 0, sizeof(t_port));
	snprintf(t_port.cfg.name, sizeof(t_port.cfg.name), "fr");
	t_port.eng = &fk_ops;
	t_tap.fds[0] = -1;
	t_port.tap = &t_tap;
	t_port.loop = loop_new(t_signal, NULL, err, sizeof(err));
	ck_assert_msg(t_port.loop, "%s", err);
}

/**
 * open_pair() - a pair on the fake engine, on the test port
 */
static void open_pair(void)
{
	char err[256];

	new_port();
	ck_assert_msg(frame_rings_open(&fp, &t_port, &t_ops, NULL, err, sizeof(err)) == 0,
		      "frame_rings_open: %s", err);
}

/**
 * close_pair() - close the pair (if still open) and the port's loop
 */
static void close_pair(void)
{
	frame_rings_close(&fp, NULL, NULL);
	loop_free(t_port.loop);
}

/**
 * rx_services() - make the fake tap readable and run the loop until it is empty
 */
static void rx_services(void)
{
	uint64_t one = 1;

	ck_assert_int_eq(write(fp.vq.eq->rx_fd, &one, sizeof(one)), sizeof(one));
	ck_assert_int_eq(loop_run(t_port.loop), 0);
}

START_TEST(batch_is_one_tx_call)
{
	unsigned int i;
	uint8_t *b;

	open_pair();
	for (i = 0; i < 100; i++) {
		b = frame_rings_tx_buf(&fp);
		ck_assert_ptr_nonnull(b);
		memset(b, (int)i, 60);
		ck_assert_int_eq(frame_rings_tx_commit(&fp, 60), 0);
	}
	ck_assert_int_eq(frame_rings_tx_flush(&fp), 100);
	ck_assert_uint_eq(fk.tx_calls, 1);
	ck_assert_uint_eq(fk.frames, 100);
	ck_assert_uint_eq(fk.last_first, 99);
	/* every buffer is free again */
	ck_assert_uint_eq(frame_rings_tx_free(&fp), FRAME_RINGS_NUM);
	ck_assert_int_eq(frame_rings_tx_flush(&fp), 0);
	ck_assert_uint_eq(fk.tx_calls, 1);	/* nothing pending: no call */
	close_pair();
}
END_TEST

START_TEST(ring_full_then_flush)
{
	unsigned int i;

	open_pair();
	for (i = 0; i < FRAME_RINGS_NUM; i++) {
		ck_assert_ptr_nonnull(frame_rings_tx_buf(&fp));
		ck_assert_int_eq(frame_rings_tx_commit(&fp, 64), 0);
	}
	ck_assert_ptr_null(frame_rings_tx_buf(&fp));
	ck_assert_int_eq(frame_rings_tx_flush(&fp), (int)FRAME_RINGS_NUM);
	ck_assert_ptr_nonnull(frame_rings_tx_buf(&fp));
	close_pair();
}
END_TEST

START_TEST(bad_commit_lengths)
{
	open_pair();
	ck_assert_int_eq(frame_rings_tx_commit(&fp, 60), -EINVAL);	/* no buffer taken */
	ck_assert_ptr_nonnull(frame_rings_tx_buf(&fp));
	ck_assert_int_eq(frame_rings_tx_commit(&fp, 0), -EINVAL);
	ck_assert_int_eq(frame_rings_tx_commit(&fp, FRAME_RINGS_BUF_SIZE), -EINVAL);
	ck_assert_int_eq(frame_rings_tx_commit(&fp, FRAME_RINGS_BUF_SIZE - 1), 0);
	ck_assert_int_eq(frame_rings_tx_flush(&fp), 1);
	ck_assert_uint_eq(fk.last_len, FRAME_RINGS_BUF_SIZE - 1);
	close_pair();
}
END_TEST

START_TEST(commit_n_skips_empty)
{
	size_t lens[5] = { 60, 0, 70, FRAME_RINGS_BUF_SIZE, 80 };
	unsigned int k;

	open_pair();
	for (k = 0; k < 5; k++) {
		uint8_t *b = frame_rings_tx_peek(&fp, k);

		ck_assert_ptr_nonnull(b);
		b[0] = (uint8_t)(10 + k);
	}
	ck_assert_ptr_null(frame_rings_tx_peek(&fp, FRAME_RINGS_NUM));
	ck_assert_int_eq(frame_rings_tx_commit_n(&fp, 5, lens), 3);
	ck_assert_uint_eq(frame_rings_tx_free(&fp), FRAME_RINGS_NUM - 3);
	ck_assert_int_eq(frame_rings_tx_flush(&fp), 3);
	ck_assert_uint_eq(fk.frames, 3);
	ck_assert_uint_eq(fk.last_len, 80);
	ck_assert_uint_eq(frame_rings_tx_free(&fp), FRAME_RINGS_NUM);
	ck_assert_int_eq(frame_rings_tx_commit_n(&fp, FRAME_RINGS_NUM + 1, lens), -EINVAL);
	close_pair();
}
END_TEST

/* The pump's rx walk fills the rings from the loop: one budget per service. */
START_TEST(rx_delivers_and_reposts)
{
	open_pair();
	fk.rx_queued = 3 * FRAME_RINGS_NUM;	/* more than one ring's worth */
	rx_services();
	ck_assert_uint_eq(first_batch, ENGINE_WEIGHT_FRAMES);
	/* buffers were reposted: the next services went on */
	ck_assert_uint_eq(batches, 3);
	ck_assert_uint_eq(delivered, 3 * FRAME_RINGS_NUM);
	ck_assert_uint_eq(fk.rx_queued, 0);
	close_pair();
}
END_TEST

/* An rx() that fills buffers and then fails: those frames still reach the
 * port before the pair is reported broken. */
START_TEST(rx_error_delivers_filled)
{
	open_pair();
	fk.rx_queued = 10;
	fk.rx_fail_after = 5;
	rx_services();	/* ends: t_broken() stops the loop */
	ck_assert_uint_eq(delivered, 5);
	ck_assert_uint_eq(broken_calls, 1);
	ck_assert(!vq_running(&fp.vq));
	close_pair();
}
END_TEST

/* A tx ring the engine gives up on: the port is told, closes the pair
 * from inside the pump, and keeps the counters. */
START_TEST(tx_broken_reported)
{
	open_pair();
	ck_assert_ptr_nonnull(frame_rings_tx_buf(&fp));
	ck_assert_int_eq(frame_rings_tx_commit(&fp, 60), 0);
	ck_assert_int_eq(frame_rings_tx_flush(&fp), 1);
	fk.fail_tx = 1;
	ck_assert_ptr_nonnull(frame_rings_tx_buf(&fp));
	ck_assert_int_eq(frame_rings_tx_commit(&fp, 60), 0);
	ck_assert_int_eq(frame_rings_tx_flush(&fp), -EIO);
	ck_assert_uint_eq(broken_calls, 1);
	ck_assert_msg(strstr(broken_why, "tx ring broken (fake engine"), "%s", broken_why);
	ck_assert(!vq_running(&fp.vq));
	ck_assert_uint_eq(gone_tx.frames, 1);	/* fk_get_stats at the close */
	close_pair();
}
END_TEST

START_TEST(stats_while_open)
{
	struct engine_stats tx, rx;
	unsigned int i;

	open_pair();
	for (i = 0; i < 5; i++) {
		ck_assert_ptr_nonnull(frame_rings_tx_buf(&fp));
		ck_assert_int_eq(frame_rings_tx_commit(&fp, 64), 0);
	}
	ck_assert_int_eq(frame_rings_tx_flush(&fp), 5);
	frame_rings_get_stats(&fp, &tx, &rx);
	ck_assert_uint_eq(tx.frames, 5);
	close_pair();
	frame_rings_get_stats(&fp, &tx, &rx);
	ck_assert_uint_eq(tx.frames, 0);	/* closed: nothing */
}
END_TEST

/* Self-driven pairs stay on the main thread (their socket's) with workers. */
START_TEST(main_thread_with_workers)
{
	char err[256];

	new_port();
	ck_assert_msg(worker_pool_start(2, NULL, t_port.loop, err, sizeof(err)) == 0, "%s", err);
	ck_assert_uint_eq(worker_pool_size(), 2);
	ck_assert_msg(frame_rings_open(&fp, &t_port, &t_ops, NULL, err, sizeof(err)) == 0,
		      "frame_rings_open: %s", err);
	ck_assert_ptr_null(fp.vq.worker);
	ck_assert_ptr_eq(fp.vq.loop, t_port.loop);
	ck_assert_ptr_nonnull(frame_rings_tx_buf(&fp));
	ck_assert_int_eq(frame_rings_tx_commit(&fp, 64), 0);
	ck_assert_int_eq(frame_rings_tx_flush(&fp), 1);
	frame_rings_close(&fp, NULL, NULL);
	worker_pool_stop();	/* before its main loop goes */
	loop_free(t_port.loop);
}
END_TEST

START_TEST(open_failure_cleans_up)
{
	char err[256] = "";

	new_port();
	fk.fail_open = 1;
	ck_assert_int_eq(frame_rings_open(&fp, &t_port, &t_ops, NULL, err, sizeof(err)), -1);
	ck_assert_str_eq(err, "queue pair 0: fake engine refuses");
	ck_assert(!vq_running(&fp.vq));
	ck_assert_ptr_null(fp.tx_bufs);
	close_pair();	/* twice is harmless */
}
END_TEST

/* An engine that stops at its weight with chains left is called again. */
START_TEST(flush_past_engine_weight)
{
	unsigned int i;

	open_pair();
	fk.tx_weight = 3;
	for (i = 0; i < 10; i++) {
		memset(frame_rings_tx_buf(&fp), (int)i, 60);
		ck_assert_int_eq(frame_rings_tx_commit(&fp, 60), 0);
	}
	ck_assert_int_eq(frame_rings_tx_flush(&fp), 10);
	ck_assert_uint_eq(fk.frames, 10);
	ck_assert_uint_eq(fk.tx_calls, 4);	/* 3 + 3 + 3 + 1 */
	ck_assert_uint_eq(frame_rings_tx_free(&fp), FRAME_RINGS_NUM);
	fk.tx_weight = 0;
	close_pair();
}
END_TEST

/**
 * frame_rings_suite() - the daemon-driven ring pair suite
 *
 * Return: the suite.
 */
Suite *frame_rings_suite(void)
{
	Suite *s = runner_suite_create("frame_rings");

	RUNNER_ADD_TEST(s, batch_is_one_tx_call);
	RUNNER_ADD_TEST(s, flush_past_engine_weight);
	RUNNER_ADD_TEST(s, ring_full_then_flush);
	RUNNER_ADD_TEST(s, bad_commit_lengths);
	RUNNER_ADD_TEST(s, commit_n_skips_empty);
	RUNNER_ADD_TEST(s, rx_delivers_and_reposts);
	RUNNER_ADD_TEST(s, tx_broken_reported);
	RUNNER_ADD_TEST(s, rx_error_delivers_filled);
	RUNNER_ADD_TEST(s, stats_while_open);
	RUNNER_ADD_TEST(s, main_thread_with_workers);
	RUNNER_ADD_TEST(s, open_failure_cleans_up);
	return s;
}
