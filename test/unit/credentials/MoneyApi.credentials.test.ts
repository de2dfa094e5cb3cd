import type { ICredentialDataDecryptedObject, IHttpRequestOptions } from 'n8n-workflow';

import { MoneyApi } from '../../../credentials/MoneyApi.credentials';
import { SENT_SECRET_FIELDS } from '../../../nodes/api/values';

describe('the Money API credential', () => {
	const credential = new MoneyApi();
	const secretFields = credential.properties.filter((property) => property.typeOptions?.password === true).map((property) => property.name);

	it('sends of its secret fields exactly those the transport blanks out of every error (SENT_SECRET_FIELDS), in either authentication', async () => {
		const sent = new Set<string>();
		for (const authentication of ['clientCredentials', 'apiKey']) {
			const data: ICredentialDataDecryptedObject = { authentication, baseUrl: 'https://api.example.com', clientId: 'c1' };
			for (const field of secretFields) data[field] = `secret-of-${field}-0123456789`;
			const signed = await credential.authenticate(data, { method: 'POST', url: '/money/v1/payout', body: { amount: 5000 }, json: true } as IHttpRequestOptions);
			const request = JSON.stringify(signed);
			for (const field of secretFields) if (request.includes(`secret-of-${field}-`)) sent.add(field);
		}
		expect([...sent].sort()).toEqual([...SENT_SECRET_FIELDS].sort());
	});
});
