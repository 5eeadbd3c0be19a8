/*
 * nfq_delay: give every packet of one NFQUEUE a fixed extra delay, then accept it.
 *
 * netem is not available on the lab machine, so this is how the lab gets a real RTT:
 *   iptables -A INPUT -p tcp -j NFQUEUE --queue-num 0 --queue-bypass
 *   nfq_delay 0 20      # every queued packet waits 20 ms before the stack sees it
 * Packets leave in arrival order (a FIFO: the delay is the same for all), so the delay
 * adds latency without reordering. --queue-bypass lets traffic through untouched when
 * this program is not running.
 *
 * Build: gcc -O2 -o nfq_delay nfq_delay.c -lnetfilter_queue -lnfnetlink
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <arpa/inet.h>
#include <linux/netfilter.h>
#include <libnetfilter_queue/libnetfilter_queue.h>

#define RING_SIZE 65536 /* packets in flight in the delay line */

struct pending {
	uint32_t id;
	int64_t due_ns;
};

static struct pending ring[RING_SIZE];
static unsigned head, tail; /* ring[head..tail) are waiting */
static int64_t delay_ns;
static volatile sig_atomic_t stop;

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int on_packet(struct nfq_q_handle *qh, struct nfgenmsg *msg, struct nfq_data *nfa, void *data)
{
	struct nfqnl_msg_packet_hdr *ph = nfq_get_msg_packet_hdr(nfa);
	uint32_t id = ph ? ntohl(ph->packet_id) : 0;
	(void)msg;
	(void)data;
	if (tail - head >= RING_SIZE) /* delay line full: let it through rather than stall */
		return nfq_set_verdict(qh, id, NF_ACCEPT, 0, NULL);
	ring[tail % RING_SIZE].id = id;
	ring[tail % RING_SIZE].due_ns = now_ns() + delay_ns;
	tail++;
	return 0;
}

static void release_due(struct nfq_q_handle *qh)
{
	int64_t now = now_ns();
	while (head != tail && ring[head % RING_SIZE].due_ns <= now) {
		nfq_set_verdict(qh, ring[head % RING_SIZE].id, NF_ACCEPT, 0, NULL);
		head++;
	}
}

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: %s QUEUE_NUM DELAY_MS\n", argv[0]);
		return 2;
	}
	int queue_num = atoi(argv[1]);
	delay_ns = (int64_t)(atof(argv[2]) * 1e6);

	struct nfq_handle *h = nfq_open();
	if (!h) {
		perror("nfq_open");
		return 1;
	}
	nfq_unbind_pf(h, AF_INET);
	if (nfq_bind_pf(h, AF_INET) < 0) {
		perror("nfq_bind_pf");
		return 1;
	}
	struct nfq_q_handle *qh = nfq_create_queue(h, queue_num, &on_packet, NULL);
	if (!qh) {
		perror("nfq_create_queue");
		return 1;
	}
	/* Only the packet id is needed: copy no payload. */
	nfq_set_mode(qh, NFQNL_COPY_META, 0);
	nfq_set_queue_maxlen(qh, RING_SIZE);
	nfnl_rcvbufsiz(nfq_nfnlh(h), 16 * 1024 * 1024);
	int fd = nfq_fd(h);
	int one = 1;
	setsockopt(fd, SOL_NETLINK, NETLINK_NO_ENOBUFS, &one, sizeof(one));

	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	fprintf(stderr, "nfq_delay: queue %d, delay %.1f ms\n", queue_num, delay_ns / 1e6);

	char buf[4096] __attribute__((aligned));
	while (!stop) {
		int timeout_ms = -1;
		if (head != tail) {
			int64_t wait_ns = ring[head % RING_SIZE].due_ns - now_ns();
			timeout_ms = wait_ns <= 0 ? 0 : (int)((wait_ns + 999999) / 1000000);
		}
		struct pollfd pfd = {.fd = fd, .events = POLLIN};
		int ready = poll(&pfd, 1, timeout_ms);
		if (ready > 0) {
			/* Drain everything queued now, without blocking. */
			for (;;) {
				ssize_t n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
				if (n <= 0)
					break;
				nfq_handle_packet(h, buf, (int)n);
			}
		}
		release_due(qh);
	}
	/* Let the rest through on exit. */
	while (head != tail) {
		nfq_set_verdict(qh, ring[head % RING_SIZE].id, NF_ACCEPT, 0, NULL);
		head++;
	}
	nfq_destroy_queue(qh);
	nfq_close(h);
	return 0;
}
