// SPDX-License-Identifier: GPL-2.0
/*
 * nfcabort_fixed.c - an NFC digital-protocol frontend that counts aborts.
 *
 * Fixed twin of nfcabort_race.c (case: abort_cmd under the NFC device
 * lock): the RF state is stored under the driver's spinlock by switch_rf
 * and abort_cmd; the abort counter is kept without a lock, which is right
 * because the digital core calls abort_cmd only with the nfc_dev's device
 * lock held (rule nfc-digital-abort-device-lock).
 * Expected: every pair proven race-free.
 */
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/io.h>
#include <linux/spinlock.h>
#include <net/nfc/digital.h>

#define NFA_CTRL	0x00

struct nfa_priv {
	void __iomem *base;
	struct nfc_digital_dev *ddev;
	unsigned int aborts;	/* only abort_cmd counts */
	spinlock_t lock;	/* protects rf_state */
	int rf_state;		/* 0 off, 1 on, 2 aborted */
};

/* One frontend per system: the callbacks find it through this pointer,
 * which probe sets before it hands the operations to the digital core. */
static struct nfa_priv *nfa;

// @expect entry-point nfa_in_send_cmd callback nfc_digital_ops.in_send_cmd
static int nfa_in_send_cmd(struct nfc_digital_dev *ddev, struct sk_buff *skb, u16 timeout,
			   nfc_digital_cmd_complete_t cb, void *arg)
{
	iowrite32(1, nfa->base + NFA_CTRL);
	return 0;
}

// @expect entry-point nfa_tg_send_cmd callback nfc_digital_ops.tg_send_cmd
static int nfa_tg_send_cmd(struct nfc_digital_dev *ddev, struct sk_buff *skb, u16 timeout,
			   nfc_digital_cmd_complete_t cb, void *arg)
{
	iowrite32(2, nfa->base + NFA_CTRL);
	return 0;
}

// @expect entry-point nfa_tg_listen callback nfc_digital_ops.tg_listen
static int nfa_tg_listen(struct nfc_digital_dev *ddev, u16 timeout,
			 nfc_digital_cmd_complete_t cb, void *arg)
{
	iowrite32(3, nfa->base + NFA_CTRL);
	return 0;
}

// @expect entry-point nfa_configure_hw callback nfc_digital_ops.in_configure_hw
// @expect entry-point nfa_configure_hw callback nfc_digital_ops.tg_configure_hw
static int nfa_configure_hw(struct nfc_digital_dev *ddev, int type, int param)
{
	return 0;
}

// @expect entry-point nfa_switch_rf callback nfc_digital_ops.switch_rf
static int nfa_switch_rf(struct nfc_digital_dev *ddev, bool on)
{
	struct nfa_priv *priv = nfa;

	spin_lock(&priv->lock);
	priv->rf_state = on;
	spin_unlock(&priv->lock);
	iowrite32(on, priv->base + NFA_CTRL);
	return 0;
}

// @expect entry-point nfa_abort_cmd callback nfc_digital_ops.abort_cmd
static void nfa_abort_cmd(struct nfc_digital_dev *ddev)
{
	struct nfa_priv *priv = nfa;

	priv->aborts++;
	spin_lock(&priv->lock);
	priv->rf_state = 2;
	spin_unlock(&priv->lock);
}

// @expect proven nfa_switch_rf nfa_abort_cmd
// @expect proven nfa_switch_rf nfa_switch_rf
/* Two abort_cmd calls hold the NFC device lock: serialised by the kernel, never paired. */
// @expect proven nfa_abort_cmd nfa_abort_cmd

static const struct nfc_digital_ops nfa_ops = {
	.in_configure_hw	= nfa_configure_hw,
	.in_send_cmd		= nfa_in_send_cmd,
	.tg_configure_hw	= nfa_configure_hw,
	.tg_send_cmd		= nfa_tg_send_cmd,
	.tg_listen		= nfa_tg_listen,
	.switch_rf		= nfa_switch_rf,
	.abort_cmd		= nfa_abort_cmd,
};

// @expect init nfa_probe
// @expect entry-point nfa_probe probe platform_driver.probe
static int nfa_probe(struct platform_device *pdev)
{
	struct nfa_priv *priv;

	priv = devm_kzalloc(&pdev->dev, sizeof(*priv), GFP_KERNEL);
	if (!priv)
		return -ENOMEM;
	priv->base = devm_platform_ioremap_resource(pdev, 0);
	if (IS_ERR(priv->base))
		return PTR_ERR(priv->base);
	spin_lock_init(&priv->lock);
	nfa = priv;
	priv->ddev = nfc_digital_allocate_device(&nfa_ops, NFC_PROTO_NFC_DEP_MASK, 0, 0, 0);
	if (!priv->ddev)
		return -ENOMEM;
	nfc_digital_set_parent_dev(priv->ddev, &pdev->dev);
	platform_set_drvdata(pdev, priv);
	return nfc_digital_register_device(priv->ddev);
}

// @expect entry-point nfa_remove remove platform_driver.remove
static void nfa_remove(struct platform_device *pdev)
{
	struct nfa_priv *priv = platform_get_drvdata(pdev);

	nfc_digital_unregister_device(priv->ddev);
	nfc_digital_free_device(priv->ddev);
}

static struct platform_driver nfa_driver = {
	.probe	= nfa_probe,
	.remove	= nfa_remove,
	.driver.name = "nfcabort",
};

// @expect entry-point nfa_driver_init module-init module_init
// @expect entry-point nfa_driver_exit module-exit module_exit
module_platform_driver(nfa_driver);

MODULE_DESCRIPTION("racewatch race corpus: NFC digital abort_cmd under the device lock fixed");
MODULE_LICENSE("GPL");
