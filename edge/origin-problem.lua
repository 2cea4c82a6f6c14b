-- Classifies why HAProxy could not get a response from the origin, for the 502 page
-- (edge/pages/origin-error.html) and the X-Hostgate-Error header. Only a TLS failure leaves an
-- OpenSSL error on the backend connection (ssl_bc_err); bc_err alone is not enough: a refused
-- connection can show up as a generic "SSL handshake failure" there.
core.register_fetches("hg_origin_problem", function(txn)
  local host = txn:get_var("txn.dsthost") or "?"
  local port = txn:get_var("txn.dstport") or "?"
  local ssl = txn.f:ssl_bc_err()
  if ssl == nil or ssl == 0 then
    txn:set_var("txn.origin_problem", "origin_unreachable")
    return "The origin server of this site (" .. host .. ":" .. port .. ") could not be reached."
  end
  local detail = txn.f:bc_err_str() or txn.f:ssl_bc_err_str() or "TLS handshake failed"
  if string.find(txn.f:ssl_bc_err_str() or "", "certificate verify failed", 1, true) then
    txn:set_var("txn.origin_problem", "origin_certificate_invalid")
    return "The origin server of this site (" .. host .. ":" .. port .. ") presented a TLS certificate that is not valid for " .. host .. ": " .. detail .. "."
  end
  txn:set_var("txn.origin_problem", "origin_tls_failed")
  return "The origin server of this site (" .. host .. ":" .. port .. ") failed the TLS handshake: " .. detail .. "."
end)
