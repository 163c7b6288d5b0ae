// SPDX-License-Identifier: GPL-2.0
/*
 * nfcdig_race.c - an NFC digital-protocol frontend behind a mailbox.
 *
 * Race test (case: the NFC digital core's command work). The digital core
 * calls in_send_cmd, tg_send_cmd and tg_listen only from digital_wq_cmd,
 * the device's one command work item (net/nfc/digital_core.c), so the
 * three never run at the same time and store the completion callback
 * without a lock (rule nfc-digital-cmd-work). abort_cmd is called from
 * the poll and device-down paths, outside that work: clearing the
 * callback there races with the three. Fixed twin: nfcdig_fixed.c.
 */
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/io.h>
#include <net/nfc/digital.h>

#define NFD_MBOX	0x00

struct nfd_priv {
	void __iomem *base;
	struct nfc_digital_dev *ddev;
	nfc_digital_cmd_complete_t cb;	/* the pending command's callback */
	void *arg;
};

/* One frontend per system: the callbacks find it through this pointer,
 * which probe sets before it hands the operations to the digital core. */
static struct nfd_priv *nfd;

static int nfd_queue(struct nfc_digital_dev *ddev, nfc_digital_cmd_complete_t cb, void *arg)
{
	struct nfd_priv *priv = nfd;

	priv->cb = cb;		/* @racy */
	priv->arg = arg;
	iowrite32(1, priv->base + NFD_MBOX);
	return 0;
}

// @expect entry-point nfd_in_send_cmd callback nfc_digital_ops.in_send_cmd
static int nfd_in_send_cmd(struct nfc_digital_dev *ddev, struct sk_buff *skb, u16 timeout,
			   nfc_digital_cmd_complete_t cb, void *arg)
{
	return nfd_queue(ddev, cb, arg);
}

// @expect entry-point nfd_tg_send_cmd callback nfc_digital_ops.tg_send_cmd
static int nfd_tg_send_cmd(struct nfc_digital_dev *ddev, struct sk_buff *skb, u16 timeout,
			   nfc_digital_cmd_complete_t cb, void *arg)
{
	return nfd_queue(ddev, cb, arg);
}

// @expect entry-point nfd_tg_listen callback nfc_digital_ops.tg_listen
static int nfd_tg_listen(struct nfc_digital_dev *ddev, u16 timeout,
			 nfc_digital_cmd_complete_t cb, void *arg)
{
	return nfd_queue(ddev, cb, arg);
}

// @expect entry-point nfd_configure_hw callback nfc_digital_ops.in_configure_hw
// @expect entry-point nfd_configure_hw callback nfc_digital_ops.tg_configure_hw
static int nfd_configure_hw(struct nfc_digital_dev *ddev, int type, int param)
{
	return 0;
}

// @expect entry-point nfd_switch_rf callback nfc_digital_ops.switch_rf
static int nfd_switch_rf(struct nfc_digital_dev *ddev, bool on)
{
	struct nfd_priv *priv = nfd;

	iowrite32(on, priv->base + NFD_MBOX);
	return 0;
}

// @expect entry-point nfd_abort_cmd callback nfc_digital_ops.abort_cmd
static void nfd_abort_cmd(struct nfc_digital_dev *ddev)
{
	struct nfd_priv *priv = nfd;

	priv->cb = NULL;	/* @racy: outside the command work */
}

// @expect race nfd_in_send_cmd nfd_abort_cmd "struct nfd_priv.cb"
// @expect confirmed nfd_in_send_cmd nfd_abort_cmd "struct nfd_priv.cb"
// @expect race nfd_tg_send_cmd nfd_abort_cmd "struct nfd_priv.cb"
// @expect confirmed nfd_tg_send_cmd nfd_abort_cmd "struct nfd_priv.cb"
// @expect race nfd_tg_listen nfd_abort_cmd "struct nfd_priv.cb"
// @expect confirmed nfd_tg_listen nfd_abort_cmd "struct nfd_priv.cb"
/* Only from the device's command work: serialised by the kernel, never paired. */
// @expect proven nfd_in_send_cmd nfd_tg_send_cmd
// @expect proven nfd_in_send_cmd nfd_tg_listen
// @expect proven nfd_tg_send_cmd nfd_tg_listen
// @expect proven nfd_in_send_cmd nfd_in_send_cmd
/* abort_cmd only under the NFC device lock (rule nfc-digital-abort-device-lock): never paired with itself. */
// @expect proven nfd_abort_cmd nfd_abort_cmd

static const struct nfc_digital_ops nfd_ops = {
	.in_configure_hw	= nfd_configure_hw,
	.in_send_cmd		= nfd_in_send_cmd,
	.tg_configure_hw	= nfd_configure_hw,
	.tg_send_cmd		= nfd_tg_send_cmd,
	.tg_listen		= nfd_tg_listen,
	.switch_rf		= nfd_switch_rf,
	.abort_cmd		= nfd_abort_cmd,
};

// @expect init nfd_probe
// @expect entry-point nfd_probe probe platform_driver.probe
static int nfd_probe(struct platform_device *pdev)
{
	struct nfd_priv *priv;

	priv = devm_kzalloc(&pdev->dev, sizeof(*priv), GFP_KERNEL);
	if (!priv)
		return -ENOMEM;
	priv->base = devm_platform_ioremap_resource(pdev, 0);
	if (IS_ERR(priv->base))
		return PTR_ERR(priv->base);
	nfd = priv;
	priv->ddev = nfc_digital_allocate_device(&nfd_ops, NFC_PROTO_NFC_DEP_MASK, 0, 0, 0);
	if (!priv->ddev)
		return -ENOMEM;
	nfc_digital_set_parent_dev(priv->ddev, &pdev->dev);
	platform_set_drvdata(pdev, priv);
	return nfc_digital_register_device(priv->ddev);
}

// @expect entry-point nfd_remove remove platform_driver.remove
static void nfd_remove(struct platform_device *pdev)
{
	struct nfd_priv *priv = platform_get_drvdata(pdev);

	nfc_digital_unregister_device(priv->ddev);
	nfc_digital_free_device(priv->ddev);
}

static struct platform_driver nfd_driver = {
	.probe	= nfd_probe,
	.remove	= nfd_remove,
	.driver.name = "nfcdig",
};

// @expect entry-point nfd_driver_init module-init module_init
// @expect entry-point nfd_driver_exit module-exit module_exit
module_platform_driver(nfd_driver);

MODULE_DESCRIPTION("racewatch race corpus: NFC digital commands from one work item against abort_cmd");
MODULE_LICENSE("GPL");
