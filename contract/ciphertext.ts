// A secret sealed by platform/secret-box.ts. Branded, so that the compiler keeps plaintext out of
// everything that is typed to carry a Ciphertext (workflow inputs, history, records); a type only,
// so that the workflow sandbox may import it.
export type Ciphertext = string & { readonly __brand: 'Ciphertext' };
