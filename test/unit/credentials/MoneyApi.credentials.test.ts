import { MoneyApi } from '../../../credentials/MoneyApi.credentials';
import { CREDENTIAL_SECRET_FIELDS } from '../../../nodes/api/values';

describe('the Money API credential', () => {
	it('has as secret fields exactly those the transport blanks out of every error (its password fields)', () => {
		const secret = new MoneyApi().properties.filter((property) => property.typeOptions?.password === true).map((property) => property.name);
		expect([...CREDENTIAL_SECRET_FIELDS].sort()).toEqual(secret.sort());
	});
});
