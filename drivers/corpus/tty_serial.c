// SPDX-License-Identifier: GPL-2.0
/*
 * tty_serial.c - polled 16550-style UART pair exposed as /dev/ttyRW0..1.
 *
 * A tty driver registered from module_init with tty_alloc_driver,
 * tty_set_operations and tty_register_driver. The tty_operations
 * (open/close/write/write_room/ioctl/hangup) and the
 * tty_port_operations (activate/shutdown/dtr_rts/carrier_raised) are static
 * designated initializers; the port ops pointer is assigned at run time.
 * There is no interrupt line: a statically defined timer (DEFINE_TIMER)
 * drains the software transmit FIFO and pushes received bytes, sharing the
 * per-port FIFO, line state and counters with the tty callbacks.
 */
#include <linux/module.h>
#include <linux/tty.h>
#include <linux/tty_driver.h>
#include <linux/tty_flip.h>
#include <linux/serial.h>
#include <linux/serial_reg.h>
#include <linux/ioport.h>
#include <linux/io.h>
#include <linux/kfifo.h>
#include <linux/spinlock.h>
#include <linux/timer.h>
#include <linux/jiffies.h>
#include <linux/uaccess.h>

#define RWTTY_NR		2
#define RWTTY_BASE		0x2a0	/* one card, a UART every 8 ports */
#define RWTTY_XMIT_SIZE		1024
#define RWTTY_POLL_JIFFIES	(HZ / 100)

struct rwtty_port {
	unsigned long iobase;
	spinlock_t lock;		/* guards xmit and the UART registers */
	DECLARE_KFIFO(xmit, u8, RWTTY_XMIT_SIZE);
	u8 mcr;
	bool active;
	unsigned long tx_count, rx_count, overruns;
	struct tty_port port;		/* last: tty_port is variable-sized */
};

static struct rwtty_port rwtty_ports[RWTTY_NR];
static struct tty_driver *rwtty_driver;

// @expect entry-point rwtty_poll timer timer_list.function
static void rwtty_poll(struct timer_list *unused);
static DEFINE_TIMER(rwtty_poll_timer, rwtty_poll);

static void rwtty_poll(struct timer_list *unused)
{
	bool any = false;
	int i;

	for (i = 0; i < RWTTY_NR; i++) {
		struct rwtty_port *p = &rwtty_ports[i];
		unsigned long flags;
		u8 lsr, ch;

		if (!p->active)
			continue;
		any = true;

		spin_lock_irqsave(&p->lock, flags);
		lsr = inb(p->iobase + UART_LSR);
		while (lsr & UART_LSR_DR) {
			ch = inb(p->iobase + UART_RX);
			if (!tty_insert_flip_char(&p->port, ch,
						  lsr & UART_LSR_OE ? TTY_OVERRUN : TTY_NORMAL))
				p->overruns++;
			p->rx_count++;
			lsr = inb(p->iobase + UART_LSR);
		}
		while ((lsr & UART_LSR_THRE) && kfifo_get(&p->xmit, &ch)) {
			outb(ch, p->iobase + UART_TX);
			p->tx_count++;
			lsr = inb(p->iobase + UART_LSR);
		}
		spin_unlock_irqrestore(&p->lock, flags);

		tty_flip_buffer_push(&p->port);
		tty_port_tty_wakeup(&p->port);
	}
	if (any)
		mod_timer(&rwtty_poll_timer, jiffies + RWTTY_POLL_JIFFIES);
}

// @expect entry-point rwtty_activate callback tty_port_operations.activate
static int rwtty_activate(struct tty_port *port, struct tty_struct *tty)
{
	struct rwtty_port *p = container_of(port, struct rwtty_port, port);

	outb(UART_LCR_WLEN8, p->iobase + UART_LCR);
	outb(UART_FCR_ENABLE_FIFO | UART_FCR_CLEAR_RCVR | UART_FCR_CLEAR_XMIT,
	     p->iobase + UART_FCR);
	outb(0, p->iobase + UART_IER);
	kfifo_reset(&p->xmit);
	p->active = true;
	mod_timer(&rwtty_poll_timer, jiffies + RWTTY_POLL_JIFFIES);
	return 0;
}

// @expect entry-point rwtty_port_shutdown callback tty_port_operations.shutdown
static void rwtty_port_shutdown(struct tty_port *port)
{
	struct rwtty_port *p = container_of(port, struct rwtty_port, port);

	p->active = false;
	outb(0, p->iobase + UART_FCR);
}

// @expect entry-point rwtty_dtr_rts callback tty_port_operations.dtr_rts
static void rwtty_dtr_rts(struct tty_port *port, bool active)
{
	struct rwtty_port *p = container_of(port, struct rwtty_port, port);
	unsigned long flags;

	spin_lock_irqsave(&p->lock, flags);
	if (active)
		p->mcr |= UART_MCR_DTR | UART_MCR_RTS;
	else
		p->mcr &= ~(UART_MCR_DTR | UART_MCR_RTS);
	outb(p->mcr, p->iobase + UART_MCR);
	spin_unlock_irqrestore(&p->lock, flags);
}

// @expect entry-point rwtty_carrier_raised callback tty_port_operations.carrier_raised
static bool rwtty_carrier_raised(struct tty_port *port)
{
	struct rwtty_port *p = container_of(port, struct rwtty_port, port);

	return inb(p->iobase + UART_MSR) & UART_MSR_DCD;
}

static const struct tty_port_operations rwtty_port_ops = {
	.activate	= rwtty_activate,
	.shutdown	= rwtty_port_shutdown,
	.dtr_rts	= rwtty_dtr_rts,
	.carrier_raised	= rwtty_carrier_raised,
};

// @expect entry-point rwtty_open callback tty_operations.open
static int rwtty_open(struct tty_struct *tty, struct file *filp)
{
	tty->driver_data = &rwtty_ports[tty->index];
	return tty_port_open(&rwtty_ports[tty->index].port, tty, filp);
}

// @expect entry-point rwtty_close callback tty_operations.close
static void rwtty_close(struct tty_struct *tty, struct file *filp)
{
	struct rwtty_port *p = tty->driver_data;

	tty_port_close(&p->port, tty, filp);
}

// @expect entry-point rwtty_write callback tty_operations.write
static ssize_t rwtty_write(struct tty_struct *tty, const u8 *buf, size_t count)
{
	struct rwtty_port *p = tty->driver_data;
	unsigned long flags;
	unsigned int n;

	spin_lock_irqsave(&p->lock, flags);
	n = kfifo_in(&p->xmit, buf, count);
	spin_unlock_irqrestore(&p->lock, flags);
	return n;
}

// @expect entry-point rwtty_write_room callback tty_operations.write_room
static unsigned int rwtty_write_room(struct tty_struct *tty)
{
	struct rwtty_port *p = tty->driver_data;

	return kfifo_avail(&p->xmit);
}

// @expect entry-point rwtty_ioctl callback tty_operations.ioctl
static int rwtty_ioctl(struct tty_struct *tty, unsigned int cmd,
		       unsigned long arg)
{
	struct rwtty_port *p = tty->driver_data;
	struct serial_icounter_struct icount = { };

	switch (cmd) {
	case TIOCGICOUNT:
		icount.tx = p->tx_count;
		icount.rx = p->rx_count;
		icount.overrun = p->overruns;
		if (copy_to_user((void __user *)arg, &icount, sizeof(icount)))
			return -EFAULT;
		return 0;
	default:
		return -ENOIOCTLCMD;
	}
}

// @expect entry-point rwtty_hangup callback tty_operations.hangup
static void rwtty_hangup(struct tty_struct *tty)
{
	struct rwtty_port *p = tty->driver_data;

	tty_port_hangup(&p->port);
}

static const struct tty_operations rwtty_ops = {
	.open		 = rwtty_open,
	.close		 = rwtty_close,
	.write		 = rwtty_write,
	.write_room	 = rwtty_write_room,
	.ioctl		 = rwtty_ioctl,
	.hangup		 = rwtty_hangup,
};

// @expect init rwtty_init
// @expect entry-point rwtty_init module-init module_init
static int __init rwtty_init(void)
{
	struct tty_driver *drv;
	int i, ret;

	if (!request_region(RWTTY_BASE, 8 * RWTTY_NR, "rwtty"))
		return -EBUSY;

	drv = tty_alloc_driver(RWTTY_NR, TTY_DRIVER_REAL_RAW | TTY_DRIVER_DYNAMIC_DEV);
	if (IS_ERR(drv)) {
		ret = PTR_ERR(drv);
		goto err_region;
	}
	drv->driver_name = "rwtty";
	drv->name = "ttyRW";
	drv->type = TTY_DRIVER_TYPE_SERIAL;
	drv->subtype = SERIAL_TYPE_NORMAL;
	drv->init_termios = tty_std_termios;
	tty_set_operations(drv, &rwtty_ops);

	for (i = 0; i < RWTTY_NR; i++) {
		struct rwtty_port *p = &rwtty_ports[i];

		tty_port_init(&p->port);
		p->port.ops = &rwtty_port_ops;
		p->iobase = RWTTY_BASE + 8 * i;
		spin_lock_init(&p->lock);
		INIT_KFIFO(p->xmit);
	}

	ret = tty_register_driver(drv);
	if (ret)
		goto err_put;
	for (i = 0; i < RWTTY_NR; i++)
		tty_port_register_device(&rwtty_ports[i].port, drv, i, NULL);
	rwtty_driver = drv;
	return 0;

err_put:
	for (i = 0; i < RWTTY_NR; i++)
		tty_port_destroy(&rwtty_ports[i].port);
	tty_driver_kref_put(drv);
err_region:
	release_region(RWTTY_BASE, 8 * RWTTY_NR);
	return ret;
}

// @expect entry-point rwtty_exit module-exit module_exit
static void __exit rwtty_exit(void)
{
	int i;

	for (i = 0; i < RWTTY_NR; i++)
		tty_unregister_device(rwtty_driver, i);
	tty_unregister_driver(rwtty_driver);
	timer_delete_sync(&rwtty_poll_timer);
	for (i = 0; i < RWTTY_NR; i++)
		tty_port_destroy(&rwtty_ports[i].port);
	tty_driver_kref_put(rwtty_driver);
	release_region(RWTTY_BASE, 8 * RWTTY_NR);
}

module_init(rwtty_init);
module_exit(rwtty_exit);

MODULE_DESCRIPTION("racewatch corpus: polled tty driver");
MODULE_LICENSE("GPL");
