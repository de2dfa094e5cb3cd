import type { IDataObject } from 'n8n-workflow';

import { BUSINESS_REFERENCE_METADATA_FIELD } from '../../api/values';

/** The Business Reference a transaction envelope carries in its metadata, if any. */
export function businessReferenceOf(envelope: IDataObject): string | undefined {
	const metadata = envelope.metadata;
	if (!metadata || typeof metadata !== 'object' || Array.isArray(metadata)) return undefined;
	const value = (metadata as IDataObject)[BUSINESS_REFERENCE_METADATA_FIELD];
	if (typeof value === 'number' && Number.isFinite(value)) return String(value);
	return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}
