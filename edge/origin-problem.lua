-- Classifies why HAProxy could not get a response from the origin, for the 502 page
-- (edge/pages/origin-error.html) and the X-Hostgate-Error header. A TLS failure leaves an error
-- id on the backend connection (bc_err, e.g. 33: the certificate is for another name); a
-- refused or timed-out connection leaves none.
core.register_fetches("hg_origin_problem", function(txn)
  local err = txn.f:bc_err()
  local host = txn:get_var("txn.dsthost") or "?"
  local port = txn:get_var("txn.dstport") or "?"
  if err == nil or err == 0 then
    txn:set_var("txn.origin_problem", "origin_unreachable")
    return "The origin server of this site (" .. host .. ":" .. port .. ") could not be reached."
  end
  txn:set_var("txn.origin_problem", "origin_certificate_invalid")
  return "The origin server of this site (" .. host .. ":" .. port .. ") presented a TLS certificate that is not valid for " .. host .. ": " .. (txn.f:bc_err_str() or "TLS handshake failed") .. "."
end)
