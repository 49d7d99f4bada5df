select (
  select count(*)
  from `articles` as `t1`) as `c0`, (
  select count(*)
  from `articles` as `t2`
  where (`t2`.`status` = ? and (lower(`t2`.`status`) like lower(?) escape '!' or lower(`t2`.`title`) like lower(?) escape '!' or lower(`t2`.`body`) like lower(?) escape '!'))) as `c1`
-- values: ["published","%a%","%a%","%a%"]
