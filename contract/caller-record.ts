// GET /api/v1/caller: who the credential of the request is, as the API sees it. A client (the web
// console) says whom it is signed in as, and shows the admin views only to admins; the answer
// grants nothing, every route still checks the caller itself.
import { z } from 'zod';

export const CallerSchema = z
  .object({
    subject: z.string().nullable().meta({ description: 'The qualified owner (key:<subject> or oidc:<subject>); null with caller authentication off' }),
    name: z.string().nullable().meta({ description: 'A readable name (the token\'s email or name claim, else the subject)' }),
    admin: z.boolean().meta({ description: 'Sees and acts on every owner\'s connectors (always true with caller authentication off)' }),
    authenticated: z.boolean().meta({ description: 'False when the service runs without caller authentication' }),
  })
  .meta({ id: 'Caller' });
export type CallerView = z.infer<typeof CallerSchema>;
