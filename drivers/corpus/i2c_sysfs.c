// SPDX-License-Identifier: GPL-2.0
/*
 * i2c_sysfs.c - I2C digital temperature sensor with a sysfs interface.
 *
 * An i2c_driver (probe/remove) registered with module_i2c_driver. The probe
 * creates an attribute group made of DEVICE_ATTR_RO(temp_input) and
 * DEVICE_ATTR_RW(alarm_limit), so the show/store callbacks come from the
 * macros' device_attribute initializers. Runtime PM is wired through
 * DEFINE_RUNTIME_DEV_PM_OPS, which also stores
 * the kernel helpers pm_runtime_force_suspend/resume in the sleep fields,
 * and is reached via `.driver = { .pm = pm_ptr(&rwtemp_pm) }`. Cached
 * readings and limits are shared between sysfs and PM, under a mutex.
 */
#include <linux/module.h>
#include <linux/i2c.h>
#include <linux/device.h>
#include <linux/sysfs.h>
#include <linux/mutex.h>
#include <linux/jiffies.h>
#include <linux/pm.h>
#include <linux/pm_runtime.h>
#include <linux/mod_devicetable.h>

#define RWTEMP_REG_TEMP		0x00
#define RWTEMP_REG_CONFIG	0x01
#define  RWTEMP_CFG_SHUTDOWN	BIT(0)
#define RWTEMP_REG_LIMIT	0x03

struct rwtemp {
	struct i2c_client *client;
	struct mutex lock;		/* guards the cache and the registers */
	unsigned long last_update;
	unsigned int interval_ms;
	int temp_mc;			/* millidegrees Celsius */
	int limit_mc;
	u8 config;
};

static int rwtemp_reg_to_mc(s32 reg)
{
	return ((s16)reg >> 4) * 625 / 10;
}

static int rwtemp_update(struct rwtemp *data)
{
	s32 val;

	if (time_before(jiffies, data->last_update +
			msecs_to_jiffies(data->interval_ms)))
		return 0;
	val = i2c_smbus_read_word_swapped(data->client, RWTEMP_REG_TEMP);
	if (val < 0)
		return val;
	data->temp_mc = rwtemp_reg_to_mc(val);
	data->last_update = jiffies;
	return 0;
}

// @expect entry-point temp_input_show callback device_attribute.show
static ssize_t temp_input_show(struct device *dev,
			       struct device_attribute *attr, char *buf)
{
	struct rwtemp *data = dev_get_drvdata(dev);
	int ret;

	mutex_lock(&data->lock);
	ret = rwtemp_update(data);
	mutex_unlock(&data->lock);
	if (ret)
		return ret;
	return sysfs_emit(buf, "%d\n", data->temp_mc);
}

// @expect entry-point alarm_limit_show callback device_attribute.show
static ssize_t alarm_limit_show(struct device *dev,
				struct device_attribute *attr, char *buf)
{
	struct rwtemp *data = dev_get_drvdata(dev);

	return sysfs_emit(buf, "%d\n", data->limit_mc);
}

// @expect entry-point alarm_limit_store callback device_attribute.store
static ssize_t alarm_limit_store(struct device *dev,
				 struct device_attribute *attr,
				 const char *buf, size_t count)
{
	struct rwtemp *data = dev_get_drvdata(dev);
	int val, ret;

	ret = kstrtoint(buf, 10, &val);
	if (ret)
		return ret;
	val = clamp_val(val, -55000, 125000);

	mutex_lock(&data->lock);
	ret = i2c_smbus_write_word_swapped(data->client, RWTEMP_REG_LIMIT,
					   (u16)(val * 10 / 625 * 16));
	if (!ret)
		data->limit_mc = val;
	mutex_unlock(&data->lock);
	return ret ? ret : count;
}

static DEVICE_ATTR_RO(temp_input);
static DEVICE_ATTR_RW(alarm_limit);

static struct attribute *rwtemp_attrs[] = {
	&dev_attr_temp_input.attr,
	&dev_attr_alarm_limit.attr,
	NULL
};

static const struct attribute_group rwtemp_group = {
	.attrs = rwtemp_attrs,
};

// @expect entry-point rwtemp_runtime_suspend callback dev_pm_ops.runtime_suspend
static int rwtemp_runtime_suspend(struct device *dev)
{
	struct rwtemp *data = dev_get_drvdata(dev);
	int ret;

	mutex_lock(&data->lock);
	data->config |= RWTEMP_CFG_SHUTDOWN;
	ret = i2c_smbus_write_byte_data(data->client, RWTEMP_REG_CONFIG,
					data->config);
	mutex_unlock(&data->lock);
	return ret;
}

// @expect entry-point rwtemp_runtime_resume callback dev_pm_ops.runtime_resume
static int rwtemp_runtime_resume(struct device *dev)
{
	struct rwtemp *data = dev_get_drvdata(dev);
	int ret;

	mutex_lock(&data->lock);
	data->config &= ~RWTEMP_CFG_SHUTDOWN;
	ret = i2c_smbus_write_byte_data(data->client, RWTEMP_REG_CONFIG,
					data->config);
	data->last_update = jiffies - msecs_to_jiffies(data->interval_ms);
	mutex_unlock(&data->lock);
	return ret;
}

// @expect external pm_runtime_force_suspend callback dev_pm_ops.suspend
// @expect external pm_runtime_force_suspend callback dev_pm_ops.freeze
// @expect external pm_runtime_force_suspend callback dev_pm_ops.poweroff
// @expect external pm_runtime_force_resume callback dev_pm_ops.resume
// @expect external pm_runtime_force_resume callback dev_pm_ops.thaw
// @expect external pm_runtime_force_resume callback dev_pm_ops.restore
static DEFINE_RUNTIME_DEV_PM_OPS(rwtemp_pm, rwtemp_runtime_suspend,
				 rwtemp_runtime_resume, NULL);

// @expect init rwtemp_probe
// @expect entry-point rwtemp_probe probe i2c_driver.probe
static int rwtemp_probe(struct i2c_client *client)
{
	struct rwtemp *data;
	s32 cfg;
	int ret;

	if (!i2c_check_functionality(client->adapter,
				     I2C_FUNC_SMBUS_WORD_DATA | I2C_FUNC_SMBUS_BYTE_DATA))
		return -ENODEV;

	data = devm_kzalloc(&client->dev, sizeof(*data), GFP_KERNEL);
	if (!data)
		return -ENOMEM;
	data->client = client;
	mutex_init(&data->lock);
	data->interval_ms = 1000;
	data->limit_mc = 80000;

	cfg = i2c_smbus_read_byte_data(client, RWTEMP_REG_CONFIG);
	if (cfg < 0)
		return cfg;
	data->config = cfg & ~RWTEMP_CFG_SHUTDOWN;
	ret = i2c_smbus_write_byte_data(client, RWTEMP_REG_CONFIG, data->config);
	if (ret)
		return ret;
	data->last_update = jiffies - msecs_to_jiffies(data->interval_ms);
	i2c_set_clientdata(client, data);

	pm_runtime_set_active(&client->dev);
	pm_runtime_enable(&client->dev);

	ret = sysfs_create_group(&client->dev.kobj, &rwtemp_group);
	if (ret)
		pm_runtime_disable(&client->dev);
	return ret;
}

// @expect entry-point rwtemp_remove remove i2c_driver.remove
static void rwtemp_remove(struct i2c_client *client)
{
	struct rwtemp *data = i2c_get_clientdata(client);

	sysfs_remove_group(&client->dev.kobj, &rwtemp_group);
	pm_runtime_disable(&client->dev);
	mutex_lock(&data->lock);
	data->config |= RWTEMP_CFG_SHUTDOWN;
	i2c_smbus_write_byte_data(client, RWTEMP_REG_CONFIG, data->config);
	mutex_unlock(&data->lock);
}

static const struct i2c_device_id rwtemp_id[] = {
	{ "rwtemp" },
	{ }
};
MODULE_DEVICE_TABLE(i2c, rwtemp_id);

static const struct of_device_id rwtemp_of_match[] = {
	{ .compatible = "racewatch,rwtemp" },
	{ }
};
MODULE_DEVICE_TABLE(of, rwtemp_of_match);

static struct i2c_driver rwtemp_driver = {
	.driver = {
		.name		= "rwtemp",
		.of_match_table	= rwtemp_of_match,
		.pm		= pm_ptr(&rwtemp_pm),
	},
	.probe		= rwtemp_probe,
	.remove		= rwtemp_remove,
	.id_table	= rwtemp_id,
};

// @expect entry-point rwtemp_driver_init module-init module_init
// @expect entry-point rwtemp_driver_exit module-exit module_exit
module_i2c_driver(rwtemp_driver);

MODULE_DESCRIPTION("racewatch corpus: I2C sensor with sysfs attributes");
MODULE_LICENSE("GPL");
