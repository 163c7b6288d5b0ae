// SPDX-License-Identifier: GPL-2.0
/*
 * spi_mutex_work.c - 4-channel SPI analogue-to-digital converter.
 *
 * An spi_driver (probe/remove) registered with module_spi_driver. A mutex
 * serialises every SPI transaction and the cached results; a work item
 * (INIT_WORK) cycles through the channels and is queued both from the
 * data-ready interrupt, requested with devm_request_threaded_irq with no
 * primary handler (only the threaded half is a driver function), and from a
 * write-only sysfs trigger. Sysfs attributes (DEVICE_ATTR_RO and
 * DEVICE_ATTR_WO) reach the driver core through ATTRIBUTE_GROUPS and
 * `.driver.dev_groups`. remove cancels the work but leaves the irq to devm.
 */
#include <linux/module.h>
#include <linux/spi/spi.h>
#include <linux/interrupt.h>
#include <linux/workqueue.h>
#include <linux/mutex.h>
#include <linux/device.h>
#include <linux/sysfs.h>
#include <linux/mod_devicetable.h>

#define RWADC_CMD_CONVERT(ch)	(0x80 | ((ch) << 4))
#define RWADC_CMD_POWERDOWN	0x00
#define RWADC_CHANNELS		4

struct rwadc {
	struct spi_device *spi;
	struct mutex lock;		/* guards tx/rx and the results */
	struct work_struct conv_work;
	unsigned int next_channel;
	u16 result[RWADC_CHANNELS];
	unsigned long conversions;
	bool running;
	u8 tx[4] ____cacheline_aligned;
	u8 rx[4];
};

static int rwadc_convert(struct rwadc *adc, unsigned int ch, u16 *val)
{
	struct spi_transfer xfer = {
		.tx_buf = adc->tx,
		.rx_buf = adc->rx,
		.len = 3,
	};
	int ret;

	adc->tx[0] = RWADC_CMD_CONVERT(ch);
	adc->tx[1] = 0;
	adc->tx[2] = 0;
	ret = spi_sync_transfer(adc->spi, &xfer, 1);
	if (ret)
		return ret;
	*val = ((adc->rx[1] << 8) | adc->rx[2]) & 0x0fff;
	return 0;
}

// @expect entry-point rwadc_conv_work work work_struct.func
static void rwadc_conv_work(struct work_struct *work)
{
	struct rwadc *adc = container_of(work, struct rwadc, conv_work);
	unsigned int ch;
	u16 val;

	mutex_lock(&adc->lock);
	if (!adc->running)
		goto out;
	ch = adc->next_channel;
	if (!rwadc_convert(adc, ch, &val)) {
		adc->result[ch] = val;
		adc->conversions++;
	}
	adc->next_channel = (ch + 1) % RWADC_CHANNELS;
out:
	mutex_unlock(&adc->lock);
}

// @expect entry-point rwadc_drdy_thread irq-thread devm_request_threaded_irq
static irqreturn_t rwadc_drdy_thread(int irq, void *data)
{
	struct rwadc *adc = data;

	schedule_work(&adc->conv_work);
	return IRQ_HANDLED;
}

// @expect entry-point samples_show callback device_attribute.show
static ssize_t samples_show(struct device *dev, struct device_attribute *attr,
			    char *buf)
{
	struct rwadc *adc = dev_get_drvdata(dev);
	ssize_t len;

	mutex_lock(&adc->lock);
	len = sysfs_emit(buf, "%u %u %u %u\n", adc->result[0], adc->result[1],
			 adc->result[2], adc->result[3]);
	mutex_unlock(&adc->lock);
	return len;
}

// @expect entry-point trigger_store callback device_attribute.store
static ssize_t trigger_store(struct device *dev, struct device_attribute *attr,
			     const char *buf, size_t count)
{
	struct rwadc *adc = dev_get_drvdata(dev);

	if (!adc->running)
		return -ENODEV;
	schedule_work(&adc->conv_work);
	return count;
}

static DEVICE_ATTR_RO(samples);
static DEVICE_ATTR_WO(trigger);

static struct attribute *rwadc_attrs[] = {
	&dev_attr_samples.attr,
	&dev_attr_trigger.attr,
	NULL
};
ATTRIBUTE_GROUPS(rwadc);

// @expect init rwadc_probe
// @expect entry-point rwadc_probe probe spi_driver.probe
static int rwadc_probe(struct spi_device *spi)
{
	struct rwadc *adc;
	int ret;

	adc = devm_kzalloc(&spi->dev, sizeof(*adc), GFP_KERNEL);
	if (!adc)
		return -ENOMEM;
	adc->spi = spi;
	mutex_init(&adc->lock);
	INIT_WORK(&adc->conv_work, rwadc_conv_work);
	spi_set_drvdata(spi, adc);

	spi->mode = SPI_MODE_0;
	spi->bits_per_word = 8;
	ret = spi_setup(spi);
	if (ret)
		return ret;

	adc->running = true;
	if (spi->irq > 0) {
		ret = devm_request_threaded_irq(&spi->dev, spi->irq, NULL,
						rwadc_drdy_thread, IRQF_ONESHOT,
						"rwadc", adc);
		if (ret)
			return ret;
	}
	schedule_work(&adc->conv_work);
	return 0;
}

// @expect entry-point rwadc_remove remove spi_driver.remove
static void rwadc_remove(struct spi_device *spi)
{
	struct rwadc *adc = spi_get_drvdata(spi);

	mutex_lock(&adc->lock);
	adc->running = false;
	adc->tx[0] = RWADC_CMD_POWERDOWN;
	spi_write(spi, adc->tx, 1);
	mutex_unlock(&adc->lock);
	cancel_work_sync(&adc->conv_work);
}

static const struct spi_device_id rwadc_id[] = {
	{ "rwadc4", 0 },
	{ }
};
MODULE_DEVICE_TABLE(spi, rwadc_id);

static const struct of_device_id rwadc_of_match[] = {
	{ .compatible = "racewatch,rwadc4" },
	{ }
};
MODULE_DEVICE_TABLE(of, rwadc_of_match);

static struct spi_driver rwadc_driver = {
	.driver = {
		.name		= "rwadc",
		.of_match_table	= rwadc_of_match,
		.dev_groups	= rwadc_groups,
	},
	.probe		= rwadc_probe,
	.remove		= rwadc_remove,
	.id_table	= rwadc_id,
};

// @expect entry-point rwadc_driver_init module-init module_init
// @expect entry-point rwadc_driver_exit module-exit module_exit
module_spi_driver(rwadc_driver);

MODULE_DESCRIPTION("racewatch corpus: SPI driver with mutex and work item");
MODULE_LICENSE("GPL");
