// A real OpenID provider for the tests: panva's certified oidc-provider (npm), configured from
// the JSON file named by argv[2]. Its devInteractions log in any name; the account's groups
// come from the file. Prints "listening <port>" once it accepts connections.
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

const config = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const { default: Provider } = await import(pathToFileURL(config.module).href);

const provider = new Provider(config.issuer, {
  clients: config.clients,
  jwks: config.jwks,
  scopes: ['openid', 'profile', 'groups'],
  claims: { openid: ['sub'], profile: ['name'], groups: [config.groupsClaim] },
  // Every client must send a PKCE challenge (S256 only), not just public ones.
  pkce: { required: () => true },
  features: { devInteractions: { enabled: true } },
  ttl: { IdToken: 300, AccessToken: 300, AuthorizationCode: 60, Session: 600, Grant: 600, Interaction: 600 },
  cookies: { keys: ['hookgate-test-cookie-key'] },
  async findAccount(ctx, id) {
    const account = config.accounts[id] ?? {};
    return {
      accountId: id,
      async claims() {
        return { sub: id, name: id, [config.groupsClaim]: account.groups ?? [] };
      },
    };
  },
  // The consent prompt is answered for every scope asked: the devInteractions "Continue".
  async loadExistingGrant(ctx) {
    const grantId = ctx.oidc.result?.consent?.grantId
      || ctx.oidc.session.grantIdFor(ctx.oidc.client.clientId);
    if (grantId) return ctx.oidc.provider.Grant.find(grantId);
    const grant = new ctx.oidc.provider.Grant({
      clientId: ctx.oidc.client.clientId,
      accountId: ctx.oidc.session.accountId,
    });
    grant.addOIDCScope(ctx.oidc.params.scope);
    await grant.save();
    return grant;
  },
});
provider.on('server_error', (ctx, err) => console.error('server_error', err));
const server = provider.listen(config.port, '127.0.0.1', () => {
  console.log(`listening ${server.address().port}`);
});
