// SPDX-License-Identifier: GPL-2.0
/*
 * helpers_only.c - firmware-image parsing helpers of a device driver.
 *
 * This file registers nothing with the kernel: no module_init, no bus
 * driver, no ops table the kernel sees, no interrupt, timer or work. It only
 * holds static helpers (a CRC, header checks, register-field packing) and a
 * driver-internal codec table, `struct rwfw_codec`, whose `decode` member is
 * a function pointer filled with a designated initializer. The kernel never
 * sees that table, so it yields no entry points. A companion file of the
 * driver would call rwfw_load(); here it is marked __maybe_unused.
 */
#include <linux/kernel.h>
#include <linux/types.h>
#include <linux/errno.h>
#include <linux/string.h>
#include <linux/bitfield.h>
#include <linux/crc32.h>
#include <linux/unaligned.h>
#include <linux/io.h>

// @expect no-entry-points

#define RWFW_MAGIC		0x52574657	/* "RWFW" */
#define RWFW_HDR_SIZE		16
#define RWFW_REG_CFG		0x40
#define  RWFW_CFG_VERSION	GENMASK(7, 0)
#define  RWFW_CFG_CODEC		GENMASK(11, 8)
#define  RWFW_CFG_VALID		BIT(31)

struct rwfw_header {
	__le32 magic;
	__le32 length;
	__le32 crc;
	u8 codec;
	u8 version;
	__le16 reserved;
};

struct rwfw_state {
	void __iomem *regs;
	const struct rwfw_codec *codec;
	u32 loaded_words;
	u8 version;
};

/* Driver-internal dispatch table; never handed to the kernel. */
struct rwfw_codec {
	u8 id;
	const char *name;
	int (*decode)(struct rwfw_state *st, const u8 *src, size_t len);
};

static void rwfw_write_word(struct rwfw_state *st, u32 offset, u32 val)
{
	iowrite32(val, st->regs + 0x1000 + offset);
	st->loaded_words++;
}

static int rwfw_decode_raw(struct rwfw_state *st, const u8 *src, size_t len)
{
	size_t i;

	if (len % 4)
		return -EINVAL;
	for (i = 0; i < len; i += 4)
		rwfw_write_word(st, i, get_unaligned_le32(src + i));
	return 0;
}

static int rwfw_decode_rle(struct rwfw_state *st, const u8 *src, size_t len)
{
	u32 offset = 0;
	size_t i;

	/* Pairs of (repeat count, 32-bit word). */
	for (i = 0; i + 5 <= len; i += 5) {
		u8 n = src[i];
		u32 word = get_unaligned_le32(src + i + 1);

		while (n--) {
			rwfw_write_word(st, offset, word);
			offset += 4;
		}
	}
	return i == len ? 0 : -EINVAL;
}

static const struct rwfw_codec rwfw_codecs[] = {
	{ .id = 0, .name = "raw", .decode = rwfw_decode_raw },
	{ .id = 1, .name = "rle", .decode = rwfw_decode_rle },
};

static const struct rwfw_codec *rwfw_find_codec(u8 id)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(rwfw_codecs); i++)
		if (rwfw_codecs[i].id == id)
			return &rwfw_codecs[i];
	return NULL;
}

static int rwfw_check_header(const struct rwfw_header *hdr, size_t size)
{
	u32 len = le32_to_cpu(hdr->length);

	if (le32_to_cpu(hdr->magic) != RWFW_MAGIC)
		return -EINVAL;
	if (len > size - RWFW_HDR_SIZE)
		return -EOVERFLOW;
	return 0;
}

static u32 rwfw_pack_cfg(u8 version, u8 codec)
{
	return FIELD_PREP(RWFW_CFG_VERSION, version) |
	       FIELD_PREP(RWFW_CFG_CODEC, codec) | RWFW_CFG_VALID;
}

static int __maybe_unused rwfw_load(struct rwfw_state *st, const u8 *data,
				    size_t size)
{
	const struct rwfw_header *hdr = (const void *)data;
	const u8 *payload = data + RWFW_HDR_SIZE;
	u32 len;
	int ret;

	if (size < RWFW_HDR_SIZE)
		return -EINVAL;
	ret = rwfw_check_header(hdr, size);
	if (ret)
		return ret;
	len = le32_to_cpu(hdr->length);
	if (crc32_le(~0, payload, len) != le32_to_cpu(hdr->crc))
		return -EBADMSG;

	st->codec = rwfw_find_codec(hdr->codec);
	if (!st->codec)
		return -EOPNOTSUPP;

	iowrite32(0, st->regs + RWFW_REG_CFG);
	st->loaded_words = 0;
	ret = st->codec->decode(st, payload, len);
	if (ret)
		return ret;
	st->version = hdr->version;
	iowrite32(rwfw_pack_cfg(hdr->version, hdr->codec), st->regs + RWFW_REG_CFG);
	return 0;
}
