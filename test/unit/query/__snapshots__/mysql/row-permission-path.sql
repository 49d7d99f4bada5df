select `x2`.`c0`
from (
  select `t1`.`id` as `c0`, (
    select `t3`.`title`
    from `articles` as `t3`
    where `t3`.`id` = `t1`.`article` and `t3`.`status` = ?) as `s0`
  from `comments` as `t1`
  where ((`t1`.`text` is not null and `t1`.`text` <> '') and exists (
      select 1
      from `articles` as `t4`
      where `t4`.`id` = `t1`.`article` and (`t4`.`status` = ? and `t4`.`title` like binary ? escape '!')))) as `x2`
order by `x2`.`s0` is null, `x2`.`s0`
limit ?
-- values: ["published","published","%x%",100]
