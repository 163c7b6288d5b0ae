// SPDX-License-Identifier: GPL-2.0
/*
 * local_ops.c - one-time-programmable eFuse block of an SoC.
 *
 * A platform_driver (probe/remove) registered from hand-written
 * module_init/module_exit, which also register a sysctl directory. It
 * exercises ops structures that are not file-scope tables: the regmap is
 * created from a compound literal `&((const struct regmap_config){ ... })`
 * holding writeable_reg/volatile_reg, and the nvmem provider from a local
 * `struct nvmem_config` whose reg_read is set in its initializer and whose
 * reg_write is assigned afterwards only when the block is unlocked. The
 * sysctl table is an array of ctl_table entries, one with a driver-defined
 * proc_handler and one with the kernel's proc_dointvec_minmax. The global
 * write-enable flag and device pointer are shared by sysctl, nvmem and
 * probe/remove.
 */
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/regmap.h>
#include <linux/nvmem-provider.h>
#include <linux/sysctl.h>
#include <linux/spinlock.h>
#include <linux/io.h>

#define RWEFUSE_STATUS		0x00
#define  RWEFUSE_ST_LOCKED	BIT(0)
#define  RWEFUSE_ST_BUSY	BIT(1)
#define RWEFUSE_CTRL		0x04
#define  RWEFUSE_CTRL_PROG_EN	BIT(0)
#define RWEFUSE_PROG_ADDR	0x08
#define RWEFUSE_PROG_DATA	0x0c
#define RWEFUSE_DATA(n)		(0x100 + 4 * (n))
#define RWEFUSE_WORDS		64

struct rwefuse {
	struct device *dev;
	struct regmap *map;
	spinlock_t lock;		/* guards programming sequence */
	unsigned int programmed;
};

static DEFINE_SPINLOCK(rwefuse_global_lock);	/* guards rwefuse_dev */
static struct rwefuse *rwefuse_dev;
static int rwefuse_write_enable;
static int rwefuse_prog_timeout_ms = 10;
static int rwefuse_max_timeout_ms = 1000;
static struct ctl_table_header *rwefuse_sysctl;

// @expect entry-point rwefuse_writeable_reg callback regmap_config.writeable_reg
static bool rwefuse_writeable_reg(struct device *dev, unsigned int reg)
{
	return reg == RWEFUSE_CTRL || reg == RWEFUSE_PROG_ADDR ||
	       reg == RWEFUSE_PROG_DATA;
}

// @expect entry-point rwefuse_volatile_reg callback regmap_config.volatile_reg
static bool rwefuse_volatile_reg(struct device *dev, unsigned int reg)
{
	return reg == RWEFUSE_STATUS;
}

// @expect entry-point rwefuse_reg_read callback nvmem_config.reg_read
static int rwefuse_reg_read(void *priv, unsigned int offset, void *val,
			    size_t bytes)
{
	struct rwefuse *ef = priv;
	u32 *buf = val;
	size_t i;
	int ret;

	for (i = 0; i < bytes / 4; i++) {
		ret = regmap_read(ef->map, RWEFUSE_DATA(offset / 4 + i), &buf[i]);
		if (ret)
			return ret;
	}
	return 0;
}

// @expect entry-point rwefuse_reg_write callback nvmem_config.reg_write
static int rwefuse_reg_write(void *priv, unsigned int offset, void *val,
			     size_t bytes)
{
	struct rwefuse *ef = priv;
	u32 *buf = val, st;
	size_t i;
	int ret = 0;

	if (!READ_ONCE(rwefuse_write_enable))
		return -EPERM;

	spin_lock(&ef->lock);
	regmap_write(ef->map, RWEFUSE_CTRL, RWEFUSE_CTRL_PROG_EN);
	for (i = 0; i < bytes / 4; i++) {
		regmap_write(ef->map, RWEFUSE_PROG_ADDR, offset / 4 + i);
		regmap_write(ef->map, RWEFUSE_PROG_DATA, buf[i]);
		ret = regmap_read_poll_timeout_atomic(ef->map, RWEFUSE_STATUS, st,
						      !(st & RWEFUSE_ST_BUSY), 10,
						      rwefuse_prog_timeout_ms * 1000);
		if (ret)
			break;
		ef->programmed++;
	}
	regmap_write(ef->map, RWEFUSE_CTRL, 0);
	spin_unlock(&ef->lock);
	return ret;
}

// @expect entry-point rwefuse_write_enable_handler callback ctl_table.proc_handler
static int rwefuse_write_enable_handler(const struct ctl_table *table, int write,
					void *buffer, size_t *lenp, loff_t *ppos)
{
	int ret = proc_dointvec_minmax(table, write, buffer, lenp, ppos);

	if (ret || !write)
		return ret;

	spin_lock(&rwefuse_global_lock);
	if (rwefuse_dev)
		dev_info(rwefuse_dev->dev, "programming %s\n",
			 rwefuse_write_enable ? "enabled" : "disabled");
	spin_unlock(&rwefuse_global_lock);
	return 0;
}

// @expect external proc_dointvec_minmax callback ctl_table.proc_handler
static struct ctl_table rwefuse_table[] = {
	{
		.procname	= "write_enable",
		.data		= &rwefuse_write_enable,
		.maxlen		= sizeof(int),
		.mode		= 0600,
		.proc_handler	= rwefuse_write_enable_handler,
		.extra1		= SYSCTL_ZERO,
		.extra2		= SYSCTL_ONE,
	},
	{
		.procname	= "prog_timeout_ms",
		.data		= &rwefuse_prog_timeout_ms,
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= proc_dointvec_minmax,
		.extra1		= SYSCTL_ONE,
		.extra2		= &rwefuse_max_timeout_ms,
	},
	{ }
};

// @expect init rwefuse_probe
// @expect entry-point rwefuse_probe probe platform_driver.probe
static int rwefuse_probe(struct platform_device *pdev)
{
	struct device *dev = &pdev->dev;
	struct nvmem_config cfg = {
		.dev		= dev,
		.name		= "rwefuse",
		.id		= NVMEM_DEVID_AUTO,
		.owner		= THIS_MODULE,
		.reg_read	= rwefuse_reg_read,
		.size		= RWEFUSE_WORDS * 4,
		.word_size	= 4,
		.stride		= 4,
	};
	struct nvmem_device *nvmem;
	struct rwefuse *ef;
	void __iomem *base;
	unsigned int st;
	int ret;

	ef = devm_kzalloc(dev, sizeof(*ef), GFP_KERNEL);
	if (!ef)
		return -ENOMEM;
	ef->dev = dev;
	spin_lock_init(&ef->lock);

	base = devm_platform_ioremap_resource(pdev, 0);
	if (IS_ERR(base))
		return PTR_ERR(base);
	ef->map = devm_regmap_init_mmio(dev, base, &((const struct regmap_config) {
		.reg_bits	= 32,
		.val_bits	= 32,
		.reg_stride	= 4,
		.max_register	= RWEFUSE_DATA(RWEFUSE_WORDS - 1),
		.writeable_reg	= rwefuse_writeable_reg,
		.volatile_reg	= rwefuse_volatile_reg,
	}));
	if (IS_ERR(ef->map))
		return PTR_ERR(ef->map);

	ret = regmap_read(ef->map, RWEFUSE_STATUS, &st);
	if (ret)
		return ret;
	if (st & RWEFUSE_ST_LOCKED)
		cfg.read_only = true;
	else
		cfg.reg_write = rwefuse_reg_write;
	cfg.priv = ef;

	nvmem = devm_nvmem_register(dev, &cfg);
	if (IS_ERR(nvmem))
		return PTR_ERR(nvmem);

	platform_set_drvdata(pdev, ef);
	spin_lock(&rwefuse_global_lock);
	rwefuse_dev = ef;
	spin_unlock(&rwefuse_global_lock);
	return 0;
}

// @expect entry-point rwefuse_remove remove platform_driver.remove
static void rwefuse_remove(struct platform_device *pdev)
{
	spin_lock(&rwefuse_global_lock);
	rwefuse_dev = NULL;
	spin_unlock(&rwefuse_global_lock);
}

static struct platform_driver rwefuse_driver = {
	.probe	= rwefuse_probe,
	.remove	= rwefuse_remove,
	.driver	= {
		.name	= "rwefuse",
	},
};

// @expect entry-point rwefuse_init module-init module_init
static int __init rwefuse_init(void)
{
	int ret;

	rwefuse_sysctl = register_sysctl("dev/rwefuse", rwefuse_table);
	if (!rwefuse_sysctl)
		return -ENOMEM;
	ret = platform_driver_register(&rwefuse_driver);
	if (ret)
		unregister_sysctl_table(rwefuse_sysctl);
	return ret;
}

// @expect entry-point rwefuse_exit module-exit module_exit
static void __exit rwefuse_exit(void)
{
	platform_driver_unregister(&rwefuse_driver);
	unregister_sysctl_table(rwefuse_sysctl);
}

module_init(rwefuse_init);
module_exit(rwefuse_exit);

MODULE_DESCRIPTION("racewatch corpus: local and compound-literal ops, ctl_table array");
MODULE_LICENSE("GPL");
