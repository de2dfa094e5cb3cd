import type {
	ICredentialDataDecryptedObject,
	ICredentialType,
	ICredentials,
	IHttpRequestHelper,
	IHttpRequestOptions,
	INode,
	INodeCredentialsDetails,
	INodeProperties,
	IRequestOptionsSimplified,
	IWorkflowExecuteAdditionalData,
} from 'n8n-workflow';
import { ICredentialsHelper } from 'n8n-workflow';

interface StoredCredential {
	type: string;
	data: ICredentialDataDecryptedObject;
}

/**
 * Follows the n8n server's CredentialsHelper for what the pack depends on: preAuthentication runs
 * when the expirable field is empty or after a 401, its result is persisted and merged, and every
 * getDecrypted reads the stored (possibly refreshed) data anew, as the server reads its database.
 */
export class TestCredentialsHelper extends ICredentialsHelper {
	private readonly store = new Map<string, StoredCredential>();

	readonly persistedUpdates: Array<{ id: string; type: string }> = [];

	constructor(private readonly credentialTypes: Map<string, ICredentialType>) {
		super();
	}

	set(id: string, type: string, data: ICredentialDataDecryptedObject): void {
		this.store.set(id, { type, data: { ...data } });
	}

	stored(id: string): ICredentialDataDecryptedObject {
		const entry = this.store.get(id);
		if (!entry) throw new Error(`No test credential with id ${id}`);
		return { ...entry.data };
	}

	private typeOf(name: string): ICredentialType {
		const type = this.credentialTypes.get(name);
		if (!type) throw new Error(`Unknown credential type ${name}`);
		return type;
	}

	getParentTypes(name: string): string[] {
		const parents = this.credentialTypes.get(name)?.extends ?? [];
		return parents.flatMap((parent) => [parent, ...this.getParentTypes(parent)]);
	}

	isCredentialUsableByNode(): boolean {
		return true;
	}

	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
		requestOptions: IHttpRequestOptions | IRequestOptionsSimplified,
	): Promise<IHttpRequestOptions> {
		const type = this.typeOf(typeName);
		if (typeof type.authenticate === 'function') {
			return await type.authenticate(credentials, requestOptions as IHttpRequestOptions);
		}
		return requestOptions as IHttpRequestOptions;
	}

	async preAuthentication(
		helpers: IHttpRequestHelper,
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
		node: INode,
		credentialsExpired: boolean,
	): Promise<ICredentialDataDecryptedObject | undefined> {
		const type = this.typeOf(typeName);
		const expirable = type.properties.find(
			(property) => property.type === 'hidden' && property.typeOptions?.expirable === true,
		);
		if (!expirable || typeof type.preAuthentication !== 'function') return undefined;
		if (credentials[expirable.name] !== '' && !credentialsExpired) return undefined;

		const output = await type.preAuthentication.call(helpers, credentials);
		if (output[expirable.name] === undefined) return undefined;

		const details = node.credentials?.[type.name];
		if (details?.id) {
			const stored = this.stored(details.id);
			await this.updateCredentials(details, type.name, { ...stored, ...(output as ICredentialDataDecryptedObject) });
		}
		return Object.assign(credentials, output);
	}

	async runPreAuthentication(
		helpers: IHttpRequestHelper,
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
	): Promise<ICredentialDataDecryptedObject | undefined> {
		const type = this.typeOf(typeName);
		if (typeof type.preAuthentication !== 'function') return undefined;
		return (await type.preAuthentication.call(helpers, credentials)) as ICredentialDataDecryptedObject;
	}

	async getCredentials(): Promise<ICredentials> {
		throw new Error('getCredentials is not used by the engine tests');
	}

	async getDecrypted(
		_additionalData: IWorkflowExecuteAdditionalData,
		nodeCredentials: INodeCredentialsDetails,
	): Promise<ICredentialDataDecryptedObject> {
		if (!nodeCredentials.id) throw new Error('Test credentials need an id');
		return this.stored(nodeCredentials.id);
	}

	async updateCredentials(
		nodeCredentials: INodeCredentialsDetails,
		type: string,
		data: ICredentialDataDecryptedObject,
	): Promise<void> {
		if (!nodeCredentials.id) throw new Error('Test credentials need an id');
		this.store.set(nodeCredentials.id, { type, data: { ...data } });
		this.persistedUpdates.push({ id: nodeCredentials.id, type });
	}

	async updateCredentialsOauthTokenData(): Promise<void> {}

	getCredentialsProperties(type: string): INodeProperties[] {
		return this.typeOf(type).properties;
	}
}
