import { Type } from 'typebox';

/** A wallet as the API shows it: never any secret, only whether pairing stored a grant. */
export const WalletView = Type.Object({
  onna_id: Type.String(),
  name: Type.String(),
  credential_type_name: Type.String(),
  config_type: Type.String(),
  paired: Type.Boolean({ description: 'Whether pairing has stored a grant.' }),
  paired_datetime: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  creation_datetime: Type.String({ format: 'date-time' }),
});

export function walletView(w: {
  id: string;
  name: string;
  credential_type_name: string;
  config_type: string;
  paired_at: string | null;
  created_at: string;
  paired: boolean;
}) {
  return {
    onna_id: w.id,
    name: w.name,
    credential_type_name: w.credential_type_name,
    config_type: w.config_type,
    paired: w.paired,
    paired_datetime: w.paired_at,
    creation_datetime: w.created_at,
  };
}
