import { DOCUMENT_MAX_BYTES } from '../../api/values';

export type DocumentType = 'image/jpeg' | 'image/png' | 'application/pdf';

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const PDF_SIGNATURE = [0x25, 0x50, 0x44, 0x46, 0x2d];
const JPEG_SIGNATURE = [0xff, 0xd8, 0xff];

function startsWith(bytes: Uint8Array, signature: number[]): boolean {
	return bytes.length >= signature.length && signature.every((byte, index) => bytes[index] === byte);
}

/** The document type read from its first bytes, whatever its file name or MIME type claims. */
export function detectDocumentType(bytes: Uint8Array): DocumentType | undefined {
	if (startsWith(bytes, JPEG_SIGNATURE)) return 'image/jpeg';
	if (startsWith(bytes, PNG_SIGNATURE)) return 'image/png';
	if (startsWith(bytes, PDF_SIGNATURE)) return 'application/pdf';
	return undefined;
}

export type DocumentCheck = { ok: true; type: DocumentType } | { ok: false; rule: string };

export function checkDocument(bytes: Uint8Array): DocumentCheck {
	if (bytes.length === 0) return { ok: false, rule: 'must not be empty' };
	if (bytes.length > DOCUMENT_MAX_BYTES) {
		return { ok: false, rule: `must be at most 2 MB (2097152 bytes); it is ${bytes.length} bytes` };
	}
	const type = detectDocumentType(bytes);
	if (!type) return { ok: false, rule: 'must be a JPEG, PNG or PDF document (checked from its bytes)' };
	return { ok: true, type };
}
