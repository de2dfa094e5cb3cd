import { checkDocument, detectDocumentType } from '../../../../nodes/Money/helpers/document';

const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10]);
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0]);
const PDF = Buffer.from('%PDF-1.7\n');

describe('payment reference documents', () => {
	it.each([
		['JPEG', JPEG, 'image/jpeg'],
		['PNG', PNG, 'image/png'],
		['PDF', PDF, 'application/pdf'],
	])('detects %s from its bytes', (_name, bytes, type) => {
		expect(detectDocumentType(bytes)).toBe(type);
		expect(checkDocument(bytes)).toEqual({ ok: true, type });
	});

	it.each([
		['text', Buffer.from('hello world')],
		['GIF', Buffer.from('GIF89a....')],
		['truncated PNG', PNG.subarray(0, 4)],
		['PDF-like', Buffer.from('%PDF')],
	])('refuses %s', (_name, bytes) => {
		expect(checkDocument(bytes)).toMatchObject({ ok: false, rule: expect.stringContaining('JPEG, PNG or PDF') });
	});

	it('refuses an empty document', () => {
		expect(checkDocument(Buffer.alloc(0))).toMatchObject({ ok: false, rule: 'must not be empty' });
	});

	it('accepts exactly 2 MB and refuses one byte more', () => {
		const limit = 2 * 1024 * 1024;
		expect(checkDocument(Buffer.concat([PDF, Buffer.alloc(limit - PDF.length)])).ok).toBe(true);
		expect(checkDocument(Buffer.concat([PDF, Buffer.alloc(limit - PDF.length + 1)]))).toMatchObject({
			ok: false,
			rule: expect.stringContaining('at most 2 MB'),
		});
	});
});
