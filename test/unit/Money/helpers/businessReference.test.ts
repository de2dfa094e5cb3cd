import { businessReferenceOf } from '../../../../nodes/Money/helpers/businessReference';

describe('Business Reference in metadata', () => {
	it('is read back from an envelope, text or number, and ignored when absent or blank', () => {
		expect(businessReferenceOf({ metadata: { n8n_business_reference: ' ord-1 ' } })).toBe('ord-1');
		expect(businessReferenceOf({ metadata: { n8n_business_reference: 1045 } })).toBe('1045');
		expect(businessReferenceOf({ metadata: { n8n_business_reference: '' } })).toBeUndefined();
		expect(businessReferenceOf({ metadata: null })).toBeUndefined();
		expect(businessReferenceOf({ metadata: ['x'] as never })).toBeUndefined();
	});
});
