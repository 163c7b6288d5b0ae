// SPDX-License-Identifier: GPL-2.0
/*
 * nfcregfail_race.c - an NFC digital-protocol frontend that records the
 * outcome of its registration.
 *
 * Race test (case: a registration's callbacks are live only after it
 * succeeded). nfc_digital_register_device makes the digital operations
 * callable when it returns 0 (net/nfc/core.c nfc_register_device). Probe
 * stores the outcome in the state word the operations read on every path,
 * also after a successful registration, when in_send_cmd may already run:
 * the store races with in_send_cmd's read. Fixed twin: nfcregfail_fixed.c.
 */
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/io.h>
#include <net/nfc/digital.h>

#define NFR_MBOX	0x00
#define NFR_READY	1
#define NFR_FAILED	2

struct nfr_priv {
	void __iomem *base;
	struct nfc_digital_dev *ddev;
	int state;
};

/* One frontend per system: the callbacks find it through this pointer,
 * which probe sets before it hands the operations to the digital core. */
static struct nfr_priv *nfr;

// @expect entry-point nfr_in_send_cmd callback nfc_digital_ops.in_send_cmd
static int nfr_in_send_cmd(struct nfc_digital_dev *ddev, struct sk_buff *skb, u16 timeout,
			   nfc_digital_cmd_complete_t cb, void *arg)
{
	struct nfr_priv *priv = nfr;

	if (priv->state != NFR_READY)	/* @racy */
		return -ENODEV;
	iowrite32(1, priv->base + NFR_MBOX);
	return 0;
}

// @expect entry-point nfr_tg_send_cmd callback nfc_digital_ops.tg_send_cmd
static int nfr_tg_send_cmd(struct nfc_digital_dev *ddev, struct sk_buff *skb, u16 timeout,
			   nfc_digital_cmd_complete_t cb, void *arg)
{
	return -EOPNOTSUPP;
}

// @expect entry-point nfr_tg_listen callback nfc_digital_ops.tg_listen
static int nfr_tg_listen(struct nfc_digital_dev *ddev, u16 timeout,
			 nfc_digital_cmd_complete_t cb, void *arg)
{
	return -EOPNOTSUPP;
}

// @expect entry-point nfr_configure_hw callback nfc_digital_ops.in_configure_hw
// @expect entry-point nfr_configure_hw callback nfc_digital_ops.tg_configure_hw
static int nfr_configure_hw(struct nfc_digital_dev *ddev, int type, int param)
{
	return 0;
}

// @expect entry-point nfr_switch_rf callback nfc_digital_ops.switch_rf
static int nfr_switch_rf(struct nfc_digital_dev *ddev, bool on)
{
	return 0;
}

// @expect entry-point nfr_abort_cmd callback nfc_digital_ops.abort_cmd
static void nfr_abort_cmd(struct nfc_digital_dev *ddev)
{
}

static const struct nfc_digital_ops nfr_ops = {
	.in_configure_hw	= nfr_configure_hw,
	.in_send_cmd		= nfr_in_send_cmd,
	.tg_configure_hw	= nfr_configure_hw,
	.tg_send_cmd		= nfr_tg_send_cmd,
	.tg_listen		= nfr_tg_listen,
	.switch_rf		= nfr_switch_rf,
	.abort_cmd		= nfr_abort_cmd,
};

// @expect race nfr_in_send_cmd nfr_probe "struct nfr_priv.state"
// @expect confirmed nfr_in_send_cmd nfr_probe "struct nfr_priv.state"

// @expect init nfr_probe
// @expect entry-point nfr_probe probe platform_driver.probe
static int nfr_probe(struct platform_device *pdev)
{
	struct nfr_priv *priv;
	int rc;

	priv = devm_kzalloc(&pdev->dev, sizeof(*priv), GFP_KERNEL);
	if (!priv)
		return -ENOMEM;
	priv->base = devm_platform_ioremap_resource(pdev, 0);
	if (IS_ERR(priv->base))
		return PTR_ERR(priv->base);
	nfr = priv;
	priv->ddev = nfc_digital_allocate_device(&nfr_ops, NFC_PROTO_NFC_DEP_MASK, 0, 0, 0);
	if (!priv->ddev)
		return -ENOMEM;
	nfc_digital_set_parent_dev(priv->ddev, &pdev->dev);
	platform_set_drvdata(pdev, priv);
	rc = nfc_digital_register_device(priv->ddev);
	priv->state = rc ? NFR_FAILED : NFR_READY;	/* @racy: also after success */
	if (rc)
		nfc_digital_free_device(priv->ddev);
	return rc;
}

// @expect entry-point nfr_remove remove platform_driver.remove
static void nfr_remove(struct platform_device *pdev)
{
	struct nfr_priv *priv = platform_get_drvdata(pdev);

	nfc_digital_unregister_device(priv->ddev);
	nfc_digital_free_device(priv->ddev);
}

static struct platform_driver nfr_driver = {
	.probe	= nfr_probe,
	.remove	= nfr_remove,
	.driver.name = "nfcregfail",
};

// @expect entry-point nfr_driver_init module-init module_init
// @expect entry-point nfr_driver_exit module-exit module_exit
module_platform_driver(nfr_driver);

MODULE_DESCRIPTION("racewatch race corpus: a registration's outcome stored after its callbacks are live");
MODULE_LICENSE("GPL");
