// Who is signed in, for the pieces deep in a view that word things differently for admins
// (an error's details line) or need the service's mode (whether callers are authenticated).
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { CallerView } from './types';

export const CallerContext = createContext<CallerView>({ subject: null, name: null, admin: false, authenticated: false });

export const useCaller = () => useContext(CallerContext);
