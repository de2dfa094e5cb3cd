import type { IDataObject } from 'n8n-workflow';

import { businessReferenceOf, stampBusinessReference } from '../../../../nodes/Money/helpers/businessReference';

describe('Business Reference in metadata', () => {
	it('is added beside the user metadata, and only when a Business Reference is set', () => {
		const body: IDataObject = { amount: 1, metadata: { team: 'east' } };
		expect(stampBusinessReference(body, 'ord-1')).toBeUndefined();
		expect(body.metadata).toEqual({ team: 'east', n8n_business_reference: 'ord-1' });

		const bare: IDataObject = { amount: 1 };
		stampBusinessReference(bare, 'ord-2');
		expect(bare.metadata).toEqual({ n8n_business_reference: 'ord-2' });

		const none: IDataObject = { amount: 1, metadata: { n8n_business_reference: 'set-by-hand' } };
		expect(stampBusinessReference(none, '')).toBeUndefined();
		expect(none.metadata).toEqual({ n8n_business_reference: 'set-by-hand' });
	});

	it('refuses a user entry under the same key with another value, and accepts the same value', () => {
		const body: IDataObject = { metadata: { n8n_business_reference: 'ord-8' } };
		expect(stampBusinessReference(body, 'ord-9')).toMatchObject({ parameter: 'additionalFields.metadata', label: 'Metadata', field: 'metadata.n8n_business_reference' });
		expect(body.metadata).toEqual({ n8n_business_reference: 'ord-8' });
		expect(stampBusinessReference({ metadata: { n8n_business_reference: 'ord-9' } }, 'ord-9')).toBeUndefined();
	});

	it('is read back from an envelope, text or number, and ignored when absent or blank', () => {
		expect(businessReferenceOf({ metadata: { n8n_business_reference: ' ord-1 ' } })).toBe('ord-1');
		expect(businessReferenceOf({ metadata: { n8n_business_reference: 1045 } })).toBe('1045');
		expect(businessReferenceOf({ metadata: { n8n_business_reference: '' } })).toBeUndefined();
		expect(businessReferenceOf({ metadata: null })).toBeUndefined();
		expect(businessReferenceOf({ metadata: ['x'] as never })).toBeUndefined();
	});
});
